package io.cognitionstreams.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/** `bench --tools`: what its model double answers, and how it times each hop and counts doubles from what it saw. */
class ToolStepBenchTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Topics TOPICS = new Topics(new SingleObjectAvroSerdeFactory());

    @TempDir
    Path dir;

    @Test
    void theModelCallsTheStepToolEachTurnUntilTheSessionTookItsStepsThenAnswers() throws Exception {
        ChatEndpointDouble.Answers answers = ToolStepBench.answers(3);
        String first = "{\"messages\":[{\"role\":\"system\",\"content\":\"You are a developer.\"},{\"role\":\"user\","
                + "\"content\":\"Take 3 steps with the step tool, bench session b1-s7. The first step waits 30000 "
                + "ms.\"}]}";

        JsonNode planning = answers.message(JSON.readTree(first), JSON);
        assertThat(planning.path("content").asText()).startsWith("PLAN:");
        JsonNode call = planning.path("tool_calls").get(0);
        assertThat(call.path("function").path("name").asText()).isEqualTo(StepServer.CALLED);
        assertThat(JSON.readTree(call.path("function").path("arguments").asText()))
                .isEqualTo(JSON.readTree("{\"session\":\"b1-s7\",\"n\":1,\"ms\":30000}"));

        String third = first.replace("]}", ",{\"role\":\"assistant\",\"content\":null},{\"role\":\"tool\","
                + "\"content\":\"step 1 done\"},{\"role\":\"tool\",\"content\":\"step 2 done\"}]}");
        JsonNode acting = answers.message(JSON.readTree(third), JSON);
        assertThat(acting.get("content").isNull()).as("an acting turn: calls alone").isTrue();
        assertThat(JSON.readTree(acting.path("tool_calls").get(0).path("function").path("arguments").asText()))
                .as("only the first step is slow").isEqualTo(JSON.readTree("{\"session\":\"b1-s7\",\"n\":3,\"ms\":0}"));

        String done = third.replace("]}", ",{\"role\":\"tool\",\"content\":\"step 3 done\"}]}");
        JsonNode answer = answers.message(JSON.readTree(done), JSON);
        assertThat(answer.has("tool_calls")).isFalse();
        assertThat(answer.path("content").asText()).isEqualTo("RESPONSE: took 3 steps.");
    }

    @Test
    void timesEachHopFromWhenItsRecordWasSeenAndCountsWhatCameTwice() {
        ToolStepBench.Book book = new ToolStepBench.Book(TOPICS, "b1-s");
        // Session b1-s0, two steps: request, call, approval, outcome (the tool took 20 ms), result, next request...
        book.seen(record(TOPICS.requests, request("b1-s0", 0)), 1000);
        book.seen(record(TOPICS.toolCalls, call("b1-s0", "c1")), 1100);
        book.seen(record(TOPICS.toolDecisions, decision("b1-s0", "c1")), 1150);
        // c1's tool ended at 1190 by the executor's clock: 20 ms of its hop before the tool, 10 after.
        book.seen(record(TOPICS.toolOutcomes, ToolResult.newBuilder(result("b1-s0", "c1", ToolStatus.SUCCEEDED, 20))
                .setTimestamp(Instant.ofEpochMilli(1190)).build()), 1200);
        book.seen(record(TOPICS.toolResults, result("b1-s0", "c1", ToolStatus.SUCCEEDED, 20)), 1260);
        book.seen(record(TOPICS.requests, request("b1-s0", 1)), 1300);
        book.seen(record(TOPICS.toolCalls, call("b1-s0", "c2")), 1400);
        book.seen(record(TOPICS.toolDecisions, decision("b1-s0", "c2")), 1410);
        book.seen(record(TOPICS.toolDecisions, decision("b1-s0", "c2")), 1420);
        book.seen(record(TOPICS.toolOutcomes, result("b1-s0", "c2", ToolStatus.UNKNOWN_OUTCOME, 0)), 1500);
        book.seen(record(TOPICS.toolResults, result("b1-s0", "c2", ToolStatus.UNKNOWN_OUTCOME, 0)), 1530);
        book.seen(record(TOPICS.toolResults, result("b1-s0", "c2", ToolStatus.UNKNOWN_OUTCOME, 0)), 1540);
        // Another session's call, approved while b1-s0's first call ran; and one of another run, ignored.
        book.seen(record(TOPICS.toolCalls, call("b1-s1", "d1")), 1120);
        book.seen(record(TOPICS.toolDecisions, decision("b1-s1", "d1")), 1160);
        book.seen(record(TOPICS.toolResults, result("b1-s1", "d1", ToolStatus.SUCCEEDED, 5)), 1180);
        book.seen(record(TOPICS.toolResults, result("b2-s0", "x1", ToolStatus.FAILED, 5)), 1190);

        ToolStepBench.Step step = book.step(100, 2, 2, 4, 900, 3, 0, Optional.of("b1-s0"));

        assertThat(book.results()).isEqualTo(3);
        assertThat(step.open()).isEqualTo(1);
        // Overheads: c1 1260 - 1150 - 20 = 90, c2 1530 - 1410 = 120, d1 1180 - 1160 - 5 = 15.
        assertThat(step.overhead().count()).isEqualTo(3);
        assertThat(step.overhead().max()).isEqualTo(120);
        assertThat(step.overhead().p50()).isEqualTo(90);
        assertThat(step.hops().get(ToolStepBench.Hop.DECISION).max()).isEqualTo(50);
        assertThat(step.hops().get(ToolStepBench.Hop.EXECUTION).count()).as("d1's outcome was not seen").isEqualTo(2);
        assertThat(step.hops().get(ToolStepBench.Hop.EXECUTION).max()).isEqualTo(90);
        assertThat(step.hops().get(ToolStepBench.Hop.BEFORE_TOOL).count()).as("c2's outcome has no end time")
                .isEqualTo(1);
        assertThat(step.hops().get(ToolStepBench.Hop.BEFORE_TOOL).max()).isEqualTo(20);
        assertThat(step.hops().get(ToolStepBench.Hop.AFTER_TOOL).max()).isEqualTo(10);
        assertThat(step.hops().get(ToolStepBench.Hop.OUTCOME).p50()).isEqualTo(30);
        assertThat(step.hops().get(ToolStepBench.Hop.RESULT).count()).as("b1-s0's second result has no next turn")
                .isEqualTo(1);
        assertThat(step.hops().get(ToolStepBench.Hop.RESULT).max()).isEqualTo(40);
        assertThat(step.hops().get(ToolStepBench.Hop.NEXT_REQUEST).count()).isEqualTo(2);
        assertThat(step.hops().get(ToolStepBench.Hop.NEXT_REQUEST).max()).isEqualTo(100);
        assertThat(step.counts().decisionsDoubled()).isEqualTo(1);
        assertThat(step.counts().resultsDoubled()).isEqualTo(1);
        assertThat(step.counts().unknownOutcomes()).isEqualTo(1);
        assertThat(step.counts().notSucceeded()).isEqualTo(1);
        assertThat(step.counts().doubled()).isEqualTo(2);
        assertThat(step.complete()).isFalse();
        assertThat(step.duringSlowCall()).hasValueSatisfying(during -> {
            assertThat(during.count()).as("d1, approved while c1 ran").isEqualTo(1);
            assertThat(during.max()).isEqualTo(15);
        });
    }

    @Test
    void twoSessionsCallsWithOneIdAreTwoCallsNotADouble() {
        ToolStepBench.Book book = new ToolStepBench.Book(TOPICS, "b1-s");
        for (String session : new String[] {"b1-s0", "b1-s1"}) {
            book.seen(record(TOPICS.toolCalls, call(session, "0a1b2c3d-out#0")), 1000);
            book.seen(record(TOPICS.toolDecisions, decision(session, "0a1b2c3d-out#0")), 1010);
            book.seen(record(TOPICS.toolOutcomes, result(session, "0a1b2c3d-out#0", ToolStatus.SUCCEEDED, 5)), 1020);
            book.seen(record(TOPICS.toolResults, result(session, "0a1b2c3d-out#0", ToolStatus.SUCCEEDED, 5)), 1030);
        }

        ToolStepBench.Step step = book.step(100, 2, 1, 2, 900, 2, 0, Optional.empty());

        assertThat(step.results()).isEqualTo(2);
        assertThat(step.counts().doubled()).isZero();
        assertThat(step.complete()).isTrue();
    }

    @Test
    void countsTheStepsTheServerNotedAndTheOnesItNotedTwice() throws Exception {
        Path log = dir.resolve("steps.log");
        Files.writeString(log, "b1-s0 1\nb1-s0 2\nb1-s1 1\nb1-s0 2\nb2-s0 1\n", StandardCharsets.UTF_8);

        assertThat(StepServer.runs(log, "b1-s")).containsEntry("b1-s0 1", 1).containsEntry("b1-s0 2", 2)
                .containsEntry("b1-s1 1", 1).hasSize(3);
        assertThat(StepServer.runs(dir.resolve("none.log"), "b1-s")).isEmpty();
    }

    private static <V> ConsumerRecord<byte[], byte[]> record(Topic<String, V> topic, V value) {
        return new ConsumerRecord<>(topic.name(), 0, 0, null, topic.valueSerde().serializer()
                .serialize(topic.name(), value));
    }

    private static CognitionRequest request(String session, int step) {
        return Records.request(session, "Take 2 steps.").setRequestId(session + "-" + step)
                .setAutoContinueStep(step).build();
    }

    private static ToolCall call(String session, String callId) {
        return ToolCall.newBuilder().setCallId(callId).setSessionId(session).setCaller(ToolStepBench.SKILL)
                .setSkill(ToolStepBench.SKILL).setTool(StepServer.CALLED).setArguments("{}")
                .setTimestamp(Instant.EPOCH).build();
    }

    private static ToolDecision decision(String session, String callId) {
        return ToolDecision.newBuilder().setCall(call(session, callId)).setVerdict(Verdict.APPROVED)
                .setReason("approved").setTimestamp(Instant.EPOCH).build();
    }

    private static ToolResult result(String session, String callId, ToolStatus status, long millis) {
        return ToolResult.newBuilder().setCallId(callId).setSessionId(session).setTool(StepServer.CALLED)
                .setSuccess(status == ToolStatus.SUCCEEDED).setStatus(status).setDurationMs(millis)
                .setTimestamp(Instant.EPOCH).build();
    }
}
