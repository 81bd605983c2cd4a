package io.cognitionstreams.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.council.CouncilTopology;
import io.cognitionstreams.council.Messages;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Topics;

/**
 * The council's throughput with signatures off and required, side by side: one op is a batch of {@value #ROUNDS}
 * rounds, each three heartbeats, a proposal and three votes that decide it ({@value #PER_ROUND} messages), through
 * the council's whole topology on a TopologyTestDriver (serdes, RocksDB stores, the output split). With
 * {@code REQUIRED} the messages come signed by their roles' keys, as the roles' clients send them, so the op pays for
 * verifying each signature and the seen-store's replay check; signing is the sender's cost and is done in setup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(1)
public class CouncilBench {

    static final int ROUNDS = 400;
    static final int PER_ROUND = 7;
    private static final List<String> ROLES = List.of("prime", "lite", "codemind");

    @Param({"OFF", "REQUIRED"})
    public CouncilSettings.Signatures signatures;

    private final Topics topics = Drivers.topics();
    private Path stateDir;
    private TopologyTestDriver driver;
    private TestInputTopic<String, CouncilMessage> messages;
    private TestOutputTopic<String, CouncilDecision> decisions;
    private List<CouncilMessage> batch;

    @Setup(Level.Iteration)
    public void start() throws IOException {
        stateDir = Files.createTempDirectory("council-bench");
        Map<String, Ed25519.Key> keys = Map.of("prime", Ed25519.Key.generated(), "lite", Ed25519.Key.generated(),
                "codemind", Ed25519.Key.generated());
        StreamsBuilder builder = new StreamsBuilder();
        CouncilTopology.build(builder, topics, CouncilSettings.defaults().withSignatures(signatures,
                Duration.ofMinutes(5)), Redactor.defaults(), Ed25519.Key.generated());
        driver = Drivers.driver(builder.build(), stateDir, Records.T0);
        messages = TopicDriver.input(driver, topics.councilMessages);
        decisions = TopicDriver.output(driver, topics.councilDecisions);
        var keyRecords = TopicDriver.input(driver, topics.councilKeys);
        keys.forEach((role, key) -> keyRecords.pipeInput(role, CouncilSignatures.keyRecord(role, key.publicKey(),
                Records.T0)));
        batch = new ArrayList<>(ROUNDS * PER_ROUND);
        for (int round = 0; round < ROUNDS; round++) {
            // A millisecond a round: well inside the age window and the clock-skew bound of the driver's clock.
            double at = round / 1000.0;
            String proposal = "p" + round;
            List<CouncilMessage> plain = new ArrayList<>();
            ROLES.forEach(role -> plain.add(Messages.heartbeat(role, at)));
            plain.add(Messages.proposal(proposal, "lite", at).build());
            ROLES.forEach(role -> plain.add(Messages.vote(proposal, role, Vote.YES, at)));
            for (CouncilMessage message : plain) {
                batch.add(signatures == CouncilSettings.Signatures.REQUIRED
                        ? CouncilSignatures.sign(message, keys.get(message.getSender())) : message);
            }
        }
    }

    @Benchmark
    public long decideABatch() {
        for (CouncilMessage message : batch) {
            messages.pipeInput(Messages.COUNCIL, message, message.getTimestamp());
        }
        long decided = decisions.getQueueSize();
        if (decided != ROUNDS) {
            throw new IllegalStateException(decided + " decisions of " + ROUNDS + " proposals: a message was refused");
        }
        return decided;
    }

    @TearDown(Level.Iteration)
    public void stop() throws IOException {
        driver.close();
        try (var files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
