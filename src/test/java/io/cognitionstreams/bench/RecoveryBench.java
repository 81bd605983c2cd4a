package io.cognitionstreams.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import io.cognitionstreams.assembly.TaskInstructions.Stage;
import io.cognitionstreams.assembly.history.ContextPruner;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.serde.TrustedPackages;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.timetravel.AutoFixEvents;
import io.cognitionstreams.timetravel.AutoFixPolicy;
import io.cognitionstreams.timetravel.Checkpoints;
import io.cognitionstreams.timetravel.StageContracts;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topics;

/**
 * The AutoFix loop's in-process work for a failed Verify at the end of a session: the stage contract check, seed
 * 001's prune-for-retry of the whole history (recounting what it shortens, as the assembly does), choosing the
 * previous checkpoint among the session's checkpoints (newest first, as the store's reverse scan serves them),
 * the retry request and its attempt and travel events. Store reads and Kafka are not in the loop.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class RecoveryBench {

    @Param({"50"})
    public int turns;

    private final AutoFixPolicy policy = AutoFixPolicy.defaults();
    private ContextPruner pruner;
    private List<ChatMessage> history;
    private List<Checkpoint> newestFirst;
    private CognitionRequest original;
    private LlmOutput failed;

    @Setup
    public void setUp() {
        // Copying a message resolves its generated classes, which Avro refuses until they are trusted.
        TrustedPackages.allowGeneratedClasses();
        TokenCounter counter = new Tokenizers().forModel("gpt-4o");
        pruner = ContextPruner.forModel("gpt-4o").countingWith(counter);
        String prose = BenchTexts.englishProse(100_000);
        history = new ArrayList<>();
        newestFirst = new ArrayList<>();
        for (int turn = 0; turn < turns; turn++) {
            newestFirst.add(0, checkpoint(turn, history.size()));
            history.add(message(ChatRole.USER, prose.substring(turn * 97, turn * 97 + 200 + turn % 200), null,
                    counter));
            // Every third turn the model calls a tool and gets a long result: what the pruner shortens.
            if (turn % 3 == 0) {
                history.add(message(ChatRole.ASSISTANT, "Running the check.", "call-" + turn, counter));
                history.add(message(ChatRole.TOOL, prose.substring(turn * 53, turn * 53 + 2_000), "call-" + turn,
                        counter));
            }
            history.add(message(ChatRole.ASSISTANT, prose.substring(turn * 71, turn * 71 + 400 + turn % 400), null,
                    counter));
        }
        Checkpoint last = newestFirst.get(0);
        original = CognitionRequest.newBuilder().setRequestId(last.getRequestId()).setSessionId("s")
                .setUserPrompt("Verify the canary of build 2.4.1.").setTaskInstructionKey("verification")
                .setTargetModel("gpt-4o").setTimestamp(Instant.EPOCH).build();
        failed = LlmOutput.newBuilder().setOutputId("o").setPacketId(last.getPacketId())
                .setRequestId(last.getRequestId()).setSessionId("s").setModel("bench")
                .setText("PLAN:\n1. Read the canary's metrics.\n2. Compare them with the fleet.\n"
                        + "VERIFY: fail: the canary's error rate is 4.2 %, over the 1 % budget.\n"
                        + "RESPONSE:\nThe canary check failed. Hold the rollout.")
                .setTimestamp(Instant.EPOCH).build();
        System.out.printf("%n%d turns: %d history messages, %d checkpoints%n", turns, history.size(),
                newestFirst.size());
    }

    @Benchmark
    public void recover(Blackhole sink) {
        StageContracts.Result result = StageContracts.check(Stage.VERIFY, failed.getText());
        sink.consume(pruner.pruneForRetry(history, result.reason()));
        Checkpoint previous = Checkpoints.ofPacket(newestFirst.iterator(), failed.getPacketId()).orElseThrow();
        CognitionRequest retry = policy.retry(original, previous, result.reason(), failed.getTimestamp());
        sink.consume(AutoFixEvents.attempt(failed, previous, retry, policy.maxRetries(), Records.SOURCE));
        sink.consume(AutoFixEvents.travel(failed, previous, retry, Records.SOURCE));
        sink.consume(retry);
    }

    private static ChatMessage message(ChatRole role, String content, String toolCallId, TokenCounter counter) {
        return ChatMessage.newBuilder().setRole(role).setContent(content).setToolCallId(toolCallId)
                .setTokenCount(counter.count(content)).build();
    }

    private static Checkpoint checkpoint(int turn, long historyUntil) {
        return Checkpoint.newBuilder().setSessionId("s").setSequence(turn).setStage("VERIFY")
                .setPacketId(String.format("%08x", turn)).setRequestId("r" + turn)
                .setSourceTopic(Topics.COGNITION_PACKETS).setSourcePartition(0).setSourceOffset(turn)
                .setHistoryRef(String.valueOf(historyUntil)).setTimestamp(Instant.EPOCH).build();
    }
}
