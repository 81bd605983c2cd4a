package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.topics.Topics;

/**
 * The broker stops mid-run and comes back on the same data and ports, as in a rolling restart of a one-node
 * cluster; the app is not touched and must recover by itself, answering every request exactly once. Its own
 * broker, not the shared one, which other tests are using.
 */
class BrokerRestartIT {

    private static final int REQUESTS = 1_500;
    private static final Duration DOWNTIME = Duration.ofSeconds(10);

    @Test
    void theAppRecoversByItselfAndLosesNothing(@TempDir Path dir) throws Exception {
        BrokerSettings brokerSettings = new BrokerSettings(dir.resolve("kafka"), freePort(), freePort(),
                Duration.ofSeconds(60));
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(brokerSettings);
        String bootstrap = broker.bootstrapServers();
        String run = "restart-" + UUID.randomUUID().toString().substring(0, 8);
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        long[] numbers = Traffic.first(REQUESTS);
        Map<String, String> prompts = Traffic.prompts(Workload.NO_MEMORY, run, numbers);
        CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, run, dir.resolve("state")));
        try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
            runtime.awaitRunning(Duration.ofSeconds(90));
            Traffic traffic = Traffic.start(bootstrap, topics.requests, Workload.NO_MEMORY, run, numbers, 100);
            while (traffic.sent() < REQUESTS / 3) {
                Thread.sleep(50);
            }
            broker.close();
            Thread.sleep(DOWNTIME.toMillis());
            broker = EmbeddedKafkaBroker.start(brokerSettings);
            traffic.await();

            ledger.awaitComplete(prompts, Duration.ofMinutes(5));
            assertThat(runtime.states()).as("every capability back to RUNNING without help")
                    .allSatisfy((capability, state) -> assertThat(state).isEqualTo(KafkaStreams.State.RUNNING));
            runtime.close();
            ledger.catchUp();
            Ledger.Verdict verdict = ledger.verify(prompts);
            assertThat(verdict.ok()).as(verdict.toString()).isTrue();
        } finally {
            runtime.close();
            broker.close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
