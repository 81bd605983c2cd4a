package io.cognitionstreams.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.cli.CognitionCli;
import io.cognitionstreams.gatekeeper.DecisionSignatures;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LedgerState;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolLedgerEntry;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Hostile;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.ModelDouble;
import io.cognitionstreams.testing.ModelDouble.Answer;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.LedgerKey;
import io.cognitionstreams.topics.Topics;

/**
 * The executor on a real broker, as an operator runs it: `cognition run --mcp-server test=...` in a child JVM (so
 * it can be killed for real), with skills from a skills directory, and {@link TestMcpServer} as the MCP server,
 * whose tools leave marker lines a test can count. Calls go in on tool.calls as an agent's would, through the real
 * gatekeeper, which signs approvals with the key the executor trusts.
 */
@ExtendWith(SharedBroker.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExecutorIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String TOUCH = "mcp__test__touch";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Topics TOPICS = new Topics(new SingleObjectAvroSerdeFactory());

    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    /** Permits every tool of the test server; declares none retry-safe. */
    private static final String TESTER = "tester-" + RUN;
    /** Permits every tool of the test server, and declares touch retry-safe. */
    private static final String SAFE = "safe-" + RUN;
    /** Permits only test:sleep. */
    private static final String SLEEPER = "sleeper-" + RUN;

    @TempDir
    static Path dir;
    private static String bootstrap;
    /**
     * What the test writes (tool calls, decisions, forged or not) only the app may write on a secured broker: the
     * test plays the app's model worker and gatekeeper, or someone holding the app's credential.
     */
    private static Map<String, Object> asApp;
    private static Child app;
    /**
     * The app's model: a chat-completions double that answers plain text, except where a test has it call tools
     * natively.
     */
    private static ModelDouble model;
    /** The answer to the first request whose messages hold the key; later ones get "RESPONSE: ok". */
    private static final Map<String, Answer> FIRST_ANSWERS = new ConcurrentHashMap<>();

    @BeforeAll
    static void startApp(EmbeddedKafkaBroker broker) throws Exception {
        model = new ModelDouble("/v1/chat/completions");
        // By prompt, not in turn: the app also answers what other tests left on the shared broker's topics, and
        // a queued answer would go to whichever request came first.
        model.otherwise(request -> {
            String messages = request.body().path("messages").toString();
            for (Map.Entry<String, Answer> first : FIRST_ANSWERS.entrySet()) {
                if (messages.contains(first.getKey()) && FIRST_ANSWERS.remove(first.getKey(), first.getValue())) {
                    return first.getValue();
                }
            }
            return Answer.json("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"RESPONSE: ok\"}}]}");
        });
        bootstrap = broker.bootstrapServers();
        asApp = Logins.as(bootstrap, Principals.APP);
        Logins.allowApp(bootstrap, "executor-it-" + RUN);
        Path skills = dir.resolve("skills");
        skill(skills, TESTER, List.of("test:*"), List.of());
        skill(skills, SAFE, List.of("test:*"), List.of("test:touch"));
        skill(skills, SLEEPER, List.of("test:sleep"), List.of());
        app = Child.start();
        assertThat(app.awaitRunning(Duration.ofSeconds(90))).as("the app starts; its log:%n%s", app.log()).isTrue();
    }

    @AfterAll
    static void stopApp() throws Exception {
        if (app != null) {
            app.stop();
        }
        if (model != null) {
            model.close();
        }
    }

    /**
     * A model that answers only with native tool calls, two in parallel and no content, drives a session through the
     * real gatekeeper and executor: each call runs once under the pipeline's id, and the session's next turn (auto
     * continue) shows the model the assistant message with its calls, then one tool message per call, with its ids.
     */
    @Test
    @Order(1)
    void nativeParallelToolCallsRunAndTheirResultsGoBackToTheModelPairedWithItsIds() throws Exception {
        String session = "native-" + RUN;
        Path marker = dir.resolve("native.txt");
        String firstPrompt = "Touch the marker twice, natively.";
        FIRST_ANSWERS.put("twice, natively.", Answer.json("{\"id\":\"chatcmpl-n1\",\"object\":\"chat.completion\","
                + "\"choices\":[{"
                + "\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                + nativeTouch("call_one", marker, "one") + "," + nativeTouch("call_two", marker, "two") + "]},"
                + "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":40}}"));

        // An acting turn: a planning one would want a PLAN: block, which an answer of calls alone does not have.
        Kafka.send(asApp, TOPICS.requests, session, Records.request(session, firstPrompt).setRequestId(
                "native-1-" + RUN).setActiveSkill(TESTER).setTaskInstructionKey("interruption_handling")
                .setTimestamp(Instant.now()).build());

        awaitLines(marker, 2);
        List<ModelDouble.Request> asked = awaitRequests("twice, natively.", 2);
        JsonNode first = asked.get(0).body();
        assertThat(first.path("tools").findValuesAsText("name")).as("the skill's tools, sent as the API's")
                .contains(TOUCH);
        JsonNode messages = asked.get(1).body().path("messages");
        int call = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i).has("tool_calls")) {
                call = i;
            }
        }
        assertThat(call).as("the next request holds the assistant's calls: %s", messages).isPositive();
        JsonNode assistant = messages.get(call);
        assertThat(assistant.path("role").asText()).isEqualTo("assistant");
        assertThat(assistant.get("content").isNull()).isTrue();
        assertThat(assistant.path("tool_calls").findValuesAsText("id")).containsExactly("call_one", "call_two");
        assertThat(messages.get(call + 1).path("role").asText()).isEqualTo("tool");
        assertThat(messages.get(call + 2).path("role").asText()).isEqualTo("tool");
        assertThat(List.of(messages.get(call + 1).path("tool_call_id").asText(),
                messages.get(call + 2).path("tool_call_id").asText())).as("each result right after the calls, "
                + "with its call's id").containsExactlyInAnyOrder("call_one", "call_two");
        assertThat(messages.get(call + 1).path("content").asText() + messages.get(call + 2).path("content").asText())
                .contains("touched native.txt: one", "touched native.txt: two");
        assertThat(Files.readAllLines(marker)).as("each call ran once").containsExactlyInAnyOrder("one", "two");
        List<ToolResult> results = Kafka.readAll(bootstrap, TOPICS.toolResults,
                result -> session.equals(result.getSessionId()));
        assertThat(results).extracting(ToolResult::getCallId).as("under the pipeline's ids, not the model's")
                .allMatch(id -> id.contains("-out#"));
    }

    /**
     * Native calls a model gets wrong, on the real pipeline: arguments that are not JSON, a name it was not offered,
     * an id it gives twice. None is dead-lettered, none runs, each gets a result, and the model reads each refusal
     * in a tool message answering its call.
     */
    @Test
    @Order(1)
    void malformedNativeCallsAreRefusedWithReasonsTheModelReadsAndNeverRun() throws Exception {
        String session = "native-bad-" + RUN;
        Path marker = dir.resolve("native-bad.txt");
        FIRST_ANSWERS.put("natively-bad", Answer.json("{\"choices\":[{\"message\":{\"role\":\"assistant\","
                + "\"content\":null,"
                + "\"tool_calls\":[{\"id\":\"b1\",\"type\":\"function\",\"function\":{\"name\":\"" + TOUCH
                + "\",\"arguments\":\"{not json\"}},"
                + "{\"id\":\"b2\",\"type\":\"function\",\"function\":{\"name\":\"shell_exec\",\"arguments\":"
                + "\"{\\\"command\\\":\\\"touch " + marker + "\\\"}\"}},"
                + nativeTouch("b2", marker, "duplicate") + "]}}]}"));

        Kafka.send(asApp, TOPICS.requests, session, Records.request(session, "Misbehave, natively-bad.")
                .setRequestId("native-bad-" + RUN).setActiveSkill(TESTER)
                .setTaskInstructionKey("interruption_handling").setTimestamp(Instant.now()).build());

        List<ModelDouble.Request> asked = awaitRequests("natively-bad", 2);
        JsonNode messages = asked.get(1).body().path("messages");
        List<JsonNode> tools = new ArrayList<>();
        messages.forEach(message -> {
            if (message.path("role").asText().equals("tool")) {
                tools.add(message);
            }
        });
        assertThat(tools).as("one tool message per call: %s", messages).hasSize(3);
        assertThat(tools).extracting(message -> message.path("tool_call_id").asText())
                .as("the repeated id is shown unique").contains("b1", "b2").doesNotHaveDuplicates();
        String said = tools.toString();
        assertThat(said).contains("the arguments must be a JSON object", "mcp____shell_exec", "mcp____" + TOUCH);
        assertThat(marker).as("nothing ran").doesNotExist();
        assertThat(Kafka.readAll(bootstrap, TOPICS.deadLetters, letter -> letter.getKey() != null
                && StandardCharsets.UTF_8.decode(letter.getKey().duplicate()).toString().equals(session)))
                .as("nothing dead-lettered").isEmpty();
    }

    private static String nativeTouch(String id, Path marker, String line) {
        String arguments = args(Map.of("file", marker.toString(), "line", line));
        return "{\"id\":\"" + id + "\",\"type\":\"function\",\"function\":{\"name\":\"" + TOUCH
                + "\",\"arguments\":" + JSON.valueToTree(arguments) + "}}";
    }

    /** The model requests whose messages hold {@code prompt}: its session's. */
    private static List<ModelDouble.Request> awaitRequests(String prompt, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            List<ModelDouble.Request> asked = model.requests().stream()
                    .filter(request -> request.body().path("messages").toString().contains(prompt)).toList();
            if (asked.size() >= count) {
                return asked;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(prompt + ": the model was asked " + asked.size() + " times, not "
                        + count + "; the app's log:\n" + Child.log());
            }
            Thread.sleep(100);
        }
    }

    @Test
    @Order(1)
    void anApprovedCallRunsOnceThroughTheGatekeeperAndItsResultComesBack() throws Exception {
        String session = "full-" + RUN;
        Path marker = dir.resolve("full.txt");
        call(session, "c1", TESTER, TOUCH, Map.of("file", marker.toString(), "line", "one"));

        ToolResult result = awaitResult(TOPICS.toolResults, "c1", session);
        assertThat(result.getStatus()).as(result.toString()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(result.getSuccess()).isTrue();
        assertThat(result.getText()).isEqualTo("touched full.txt: one");
        assertThat(result.getExecutor()).isEqualTo("mcp:test");
        assertThat(Files.readAllLines(marker)).containsExactly("one");

        ToolDecision decision = Kafka.readAll(bootstrap, TOPICS.toolDecisions, of(session, "c1")).get(0);
        assertThat(decision.getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(decision.getSignature()).as("signed by the gatekeeper").isNotBlank();
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolOutcomes, outcome("c1", session))).hasSize(1);
        List<ToolLedgerEntry> ledger = Kafka.readAll(bootstrap, TOPICS.toolLedger,
                entry -> session.equals(entry.getSessionId()) && "c1".equals(entry.getCallId()));
        assertThat(ledger).extracting(ToolLedgerEntry::getState)
                .as("STARTED committed before the call, FINISHED with its result")
                .containsExactly(LedgerState.STARTED, LedgerState.FINISHED);
        assertThat(ledger.get(1).getStatus()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(Kafka.readAll(bootstrap, TOPICS.tools, tool -> ("executor-it-" + RUN).equals(tool.getExecutor())))
                .as("the tools the app offers, on cognition.tools for the assembly").extracting(
                        io.cognitionstreams.schema.ToolDescriptor::getName)
                .contains(TOUCH, "mcp__test__touch_idempotent", "mcp__test__sleep", "mcp__test__crash",
                        "mcp__test__garbage");
    }

    /**
     * Routing derives call ids from 8-hex packet ids, which collide between sessions, and agents name their own calls:
     * two sessions whose decisions share a partition (and so a ledger partition) each run their call of one id.
     */
    @Test
    @Order(1)
    void twoSessionsOfOneLedgerPartitionEachRunTheirOwnCallOfOneId() throws Exception {
        String first = "twin-" + RUN;
        String second = sameDecisionsPartition(first, "twin-other-");
        Path firstMarker = dir.resolve("twin-first.txt");
        Path secondMarker = dir.resolve("twin-second.txt");
        call(first, "same-id", TESTER, TOUCH, Map.of("file", firstMarker.toString(), "line", "first"));
        call(second, "same-id", TESTER, TOUCH, Map.of("file", secondMarker.toString(), "line", "second"));

        assertThat(awaitResult(TOPICS.toolResults, "same-id", first).getStatus()).isEqualTo(ToolStatus.SUCCEEDED);
        ToolResult other = awaitResult(TOPICS.toolResults, "same-id", second);
        assertThat(other.getStatus()).as(other.toString()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(Files.readAllLines(firstMarker)).containsExactly("first");
        assertThat(Files.readAllLines(secondMarker)).containsExactly("second");
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolLedger, entry -> "same-id".equals(entry.getCallId())))
                .extracting(ToolLedgerEntry::getSessionId, ToolLedgerEntry::getState)
                .containsExactlyInAnyOrder(tuple(first, LedgerState.STARTED), tuple(first, LedgerState.FINISHED),
                        tuple(second, LedgerState.STARTED), tuple(second, LedgerState.FINISHED));
    }

    @Test
    @Order(2)
    void aReplayedTurnsCallIsAnsweredFromTheRecordAndAForkOnlyRunsWhenAskedTo() throws Exception {
        String session = "timetravel-" + RUN;
        Path marker = dir.resolve("timetravel.txt");
        Map<String, Object> arguments = Map.of("file", marker.toString(), "line", "tagged");
        call(session, "pk1-out#0", TESTER, TOUCH, arguments);
        ToolResult original = awaitResult(TOPICS.toolResults, "pk1-out#0", session);
        assertThat(original.getStatus()).as(original.toString()).isEqualTo(ToolStatus.SUCCEEDED);

        // What routing makes of the replayed turn's EXECUTE block (and of a fork's, twice), sent as an agent would.
        Kafka.send(asApp, TOPICS.toolCalls, session, ToolCall.newBuilder(toolCall(session, "pk9-out#0",
                TESTER, TOUCH, arguments)).setTimeTravel(TimeTravel.REPLAY).setParentId("pk1-out#0").build());
        String fork = session + "~fork-1";
        Kafka.send(asApp, TOPICS.toolCalls, fork, ToolCall.newBuilder(toolCall(fork, "f1", TESTER, TOUCH,
                arguments)).setTimeTravel(TimeTravel.FORK).setParentId("pk1-out#0").build());
        Kafka.send(asApp, TOPICS.toolCalls, fork, ToolCall.newBuilder(toolCall(fork, "f2", TESTER, TOUCH,
                arguments)).setTimeTravel(TimeTravel.FORK_EXECUTE).setParentId("pk1-out#0").build());

        ToolResult replayed = awaitResult(TOPICS.toolResults, "pk9-out#0", session);
        assertThat(replayed.getText()).as("the original's result").isEqualTo(original.getText());
        assertThat(replayed.getTimeTravel()).isEqualTo(TimeTravel.REPLAY);
        assertThat(awaitResult(TOPICS.toolResults, "f1", fork).getStatus()).isEqualTo(ToolStatus.NOT_EXECUTED);
        assertThat(awaitResult(TOPICS.toolResults, "f2", fork).getStatus()).as("fork --execute-tools")
                .isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(Files.readAllLines(marker)).as("the original's run and the executing fork's; the replay and "
                + "the default fork ran nothing").containsExactly("tagged", "tagged");
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolOutcomes, outcome("pk9-out#0", session)))
                .as("the executor skipped the replayed approval").isEmpty();
    }

    @Test
    @Order(3)
    void forgedUnsignedOrTamperedApprovalsNeverRunAndAreDeadLettered() throws Exception {
        String session = "forged-" + RUN;
        Path target = dir.resolve("forged.txt");
        ToolCall.Builder forged = ToolCall.newBuilder().setSessionId(session).setCaller(TESTER).setSkill(TESTER)
                .setTool(TOUCH).setArguments(args(Map.of("file", target.toString(), "line", "forged")))
                .setTimestamp(Instant.now());
        ToolDecision unsigned = approved(forged.setCallId("f-unsigned").build());
        Kafka.send(asApp, TOPICS.toolDecisions, session, unsigned);
        ToolDecision untrusted = DecisionSignatures.Signer.generated()
                .sign(approved(forged.setCallId("f-untrusted").build()));
        Kafka.send(asApp, TOPICS.toolDecisions, session, untrusted);

        // A genuine approval, then the same approval with its arguments changed after it was signed.
        Path genuine = dir.resolve("genuine.txt");
        call(session, "g1", TESTER, TOUCH, Map.of("file", genuine.toString(), "line", "genuine"));
        ToolDecision signed = Kafka.readUntil(bootstrap, TOPICS.toolDecisions, of(session, "g1"),
                seen -> !seen.isEmpty(), TIMEOUT).get(0);
        ToolDecision tampered = ToolDecision.newBuilder(signed).setCall(ToolCall.newBuilder(signed.getCall())
                .setArguments(args(Map.of("file", target.toString(), "line", "tampered"))).build()).build();
        Kafka.send(asApp, TOPICS.toolDecisions, session, tampered);

        // What comes after them on the same partition still flows.
        Path after = dir.resolve("after.txt");
        call(session, "a1", TESTER, TOUCH, Map.of("file", after.toString(), "line", "after"));
        assertThat(awaitResult(TOPICS.toolResults, "a1", session).getStatus()).isEqualTo(ToolStatus.SUCCEEDED);

        List<DeadLetter> letters = Kafka.readUntil(bootstrap, TOPICS.deadLetters,
                letter -> fromDecisions(letter, session), seen -> seen.size() >= 3, TIMEOUT);
        assertThat(letters).extracting(DeadLetter::getErrorKind).containsOnly(ErrorKind.VALIDATION);
        assertThat(letters).extracting(DeadLetter::getReason).satisfiesExactlyInAnyOrder(
                reason -> assertThat(reason).contains("f-unsigned", "not signed"),
                reason -> assertThat(reason).contains("f-untrusted", "does not trust"),
                reason -> assertThat(reason).contains("g1", "forged or changed"));
        assertThat(target).as("no forged approval ran").doesNotExist();
        assertThat(Files.readAllLines(genuine)).containsExactly("genuine");
        assertThat(Files.readAllLines(after)).containsExactly("after");
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolOutcomes, result -> session.equals(result.getSessionId())))
                .extracting(ToolResult::getCallId).containsExactly("g1", "a1");
    }

    /**
     * A genuine, validly signed approval written to tool.decisions again (an agent's retried call, a producer's
     * retry, a replay) runs once: the copy is refused as a duplicate, whether it arrives in the same poll as the
     * original or later.
     */
    @Test
    @Order(4)
    void aReplayedApprovalRunsOnce() throws Exception {
        String session = "replay-" + RUN;
        Path marker = dir.resolve("replay.txt");
        ToolDecision decision = appSigner().sign(approved(toolCall(session, "p1", TESTER, TOUCH,
                Map.of("file", marker.toString(), "line", "replayed"))));
        // Twice in one transaction: visible at once, so one executor poll holds both.
        produceInOneTransaction(decisionRecord(session, decision), decisionRecord(session, decision));
        assertThat(awaitResult(TOPICS.toolOutcomes, "p1", session).getStatus()).isEqualTo(ToolStatus.SUCCEEDED);
        // And once more, later, in a poll of its own; then a call that shows everything before it was processed.
        Kafka.send(asApp, TOPICS.toolDecisions, session, decision);
        call(session, "p2", TESTER, "mcp__test__sleep", Map.of("ms", 1));
        awaitResult(TOPICS.toolOutcomes, "p2", session);

        assertThat(Files.readAllLines(marker)).as("run once").containsExactly("replayed");
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolOutcomes, outcome("p1", session))).hasSize(1);
        List<DeadLetter> letters = Kafka.readUntil(bootstrap, TOPICS.deadLetters, letter -> fromDecisions(letter,
                session), seen -> seen.size() >= 2, TIMEOUT);
        assertThat(letters).extracting(DeadLetter::getReason)
                .allSatisfy(reason -> assertThat(reason).contains("call id p1"));
    }

    @Test
    @Order(5)
    void aDeniedCallNeverRuns() throws Exception {
        String session = "denied-" + RUN;
        Path marker = dir.resolve("denied.txt");
        call(session, "d1", SLEEPER, TOUCH, Map.of("file", marker.toString(), "line", "denied"));
        call(session, "d2", SLEEPER, "mcp__test__sleep", Map.of("ms", 1));

        assertThat(awaitResult(TOPICS.toolResults, "d2", session).getText()).isEqualTo("slept 1 ms");
        ToolDecision denial = Kafka.readAll(bootstrap, TOPICS.toolDecisions, of(session, "d1")).get(0);
        assertThat(denial.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(denial.getRequiredPermission()).isEqualTo("test:touch");
        ToolResult answer = Kafka.readAll(bootstrap, TOPICS.toolResults,
                result -> session.equals(result.getSessionId()) && "d1".equals(result.getCallId())).get(0);
        assertThat(answer.getSuccess()).as("the gatekeeper answers the denial itself").isFalse();
        assertThat(marker).doesNotExist();
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolOutcomes, result -> session.equals(result.getSessionId())))
                .as("the executor answered only the approved call").extracting(ToolResult::getCallId)
                .containsExactly("d2");
    }

    /**
     * A server that dies mid-call costs that call, reported at once as UNKNOWN_OUTCOME (it may have run), not after
     * the call timeout; the session's next call starts the server again and runs.
     */
    @Test
    @Order(6)
    void aServerThatDiesMidCallCostsOnlyThatCall() throws Exception {
        String session = "flaky-" + RUN;
        Path marker = dir.resolve("flaky.txt");
        call(session, "k1", TESTER, "mcp__test__crash", Map.of());
        call(session, "k2", TESTER, TOUCH, Map.of("file", marker.toString(), "line", "after crash"));

        ToolResult afterCrash = awaitResult(TOPICS.toolResults, "k2", session);
        assertThat(afterCrash.getStatus()).as(afterCrash.toString()).isEqualTo(ToolStatus.SUCCEEDED);
        ToolResult crashed = Kafka.readAll(bootstrap, TOPICS.toolResults, outcome("k1", session)).get(0);
        assertThat(crashed.getStatus()).as(crashed.toString()).isEqualTo(ToolStatus.UNKNOWN_OUTCOME);
        assertThat(Duration.ofMillis(crashed.getDurationMs())).as("noticed when the server died, not after the "
                + "call timeout").isLessThan(Duration.ofSeconds(20));
        assertThat(Files.readAllLines(marker)).containsExactly("after crash");
    }

    /**
     * A slow call holds up only its own session: another session's call, decided on the same partition while the
     * slow one runs (its STARTED entry committed), runs and comes back before the slow one ends. (On a loop that
     * ran a poll's calls before its next poll, the second call waited for the first.)
     */
    @Test
    @Order(6)
    void aSlowCallHoldsUpOnlyItsOwnSession() throws Exception {
        String slow = "slow-" + RUN;
        String quick = sameDecisionsPartition(slow, "quick-");
        call(slow, "s1", TESTER, "mcp__test__sleep", Map.of("ms", 15_000));
        Kafka.readUntil(bootstrap, TOPICS.toolLedger, entry -> "s1".equals(entry.getCallId())
                && slow.equals(entry.getSessionId()), seen -> !seen.isEmpty(), TIMEOUT);

        Path marker = dir.resolve("quick.txt");
        call(quick, "q1", TESTER, TOUCH, Map.of("file", marker.toString(), "line", "quick"));
        assertThat(awaitResult(TOPICS.toolResults, "q1", quick).getStatus()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolOutcomes, outcome("s1", slow)))
                .as("the slow call still runs").isEmpty();

        assertThat(awaitResult(TOPICS.toolOutcomes, "s1", slow).getText()).isEqualTo("slept 15000 ms");
        assertThat(Files.readAllLines(marker)).containsExactly("quick");
    }

    /**
     * Two calls in flight when the app is killed (SIGKILL: nothing commits), both already past their side effect:
     * after the restart the one neither its skill nor its server declares retry-safe is reported UNKNOWN_OUTCOME
     * and not run again; the one its skill declares retry-safe (SKILL.md retry_safe, signed into the approval) and
     * the one its server hints idempotent run again.
     */
    @Test
    @Order(7)
    void aCallInFlightWhenTheAppDiesIsReportedUnknownAndNotRunAgainUnlessRetrySafe() throws Exception {
        // The approvals signed with the key the app's gatekeeper signs with (and so its executor trusts), and made
        // visible in one transaction on one partition: all three calls in flight at once.
        String once = "once-" + RUN;
        String safe = sameDecisionsPartition(once, "safe-");
        String hinted = sameDecisionsPartition(once, "hinted-");
        Path hintedMarker = dir.resolve("hinted.txt");
        Path onceMarker = dir.resolve("once.txt");
        Path safeMarker = dir.resolve("safe.txt");
        DecisionSignatures.Signer gatekeeper = appSigner();
        ToolDecision onceDecision = gatekeeper.sign(ToolDecision.newBuilder(approved(toolCall(once, "u1", TESTER,
                TOUCH, Map.of("file", onceMarker.toString(), "line", "once", "sleep_first_ms", 120_000))))
                .setRetrySafe(false).build());
        ToolDecision safeDecision = gatekeeper.sign(ToolDecision.newBuilder(approved(toolCall(safe, "r1", SAFE,
                TOUCH, Map.of("file", safeMarker.toString(), "line", "safe", "sleep_first_ms", 120_000))))
                .setRetrySafe(true).build());
        ToolDecision hintedDecision = gatekeeper.sign(approved(toolCall(hinted, "h1", TESTER,
                "mcp__test__touch_idempotent", Map.of("file", hintedMarker.toString(), "line", "hinted",
                        "sleep_first_ms", 120_000))));
        produceInOneTransaction(decisionRecord(once, onceDecision), decisionRecord(safe, safeDecision),
                decisionRecord(hinted, hintedDecision));
        awaitLines(onceMarker, 1);
        awaitLines(safeMarker, 1);
        awaitLines(hintedMarker, 1);
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolLedger, entry -> "u1".equals(entry.getCallId())
                && once.equals(entry.getSessionId()))).as("committed before the tool started")
                .extracting(ToolLedgerEntry::getState).containsExactly(LedgerState.STARTED);

        // An attacker's (or a broken client's) entries on the ledger itself, for calls not yet decided: bad bytes
        // and a length bomb. The restarted executor reads them back with the partition and must neither stop nor
        // run those calls, since what an unreadable entry said (perhaps that the call ran) is lost.
        int ledgerPartition = partition(once, 3);
        String ledger = TOPICS.toolLedger.name();
        // v1 keyed by its call id alone, as versions before LedgerKey wrote: which session it was is lost, so it
        // refuses v1 in every session; v2 keyed by session and call id refuses only that session's v2.
        produceInOneTransaction(new ProducerRecord<>(ledger, ledgerPartition, "v1".getBytes(StandardCharsets.UTF_8),
                Hostile.NOT_AVRO), new ProducerRecord<>(ledger, ledgerPartition,
                new LedgerKey(once, "v2").text().getBytes(StandardCharsets.UTF_8),
                Hostile.lengthBomb(ToolLedgerEntry.class)));

        app.kill();
        app = Child.start();

        // Its executor joins once the killed one's group session (15 s) is over.
        ToolResult unknown = Kafka.readUntil(bootstrap, TOPICS.toolOutcomes, outcome("u1", once),
                seen -> !seen.isEmpty(), Duration.ofSeconds(90)).get(0);
        assertThat(unknown.getStatus()).as(unknown.toString()).isEqualTo(ToolStatus.UNKNOWN_OUTCOME);
        assertThat(unknown.getError()).contains("not run a second time");
        ToolResult rerun = awaitResult(TOPICS.toolOutcomes, "r1", safe);
        assertThat(rerun.getStatus()).as(rerun.toString()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(Files.readAllLines(onceMarker)).as("not run a second time").containsExactly("once");
        assertThat(Files.readAllLines(safeMarker)).as("retry-safe: run again").containsExactly("safe", "safe");
        assertThat(awaitResult(TOPICS.toolOutcomes, "h1", hinted).getStatus()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(Files.readAllLines(hintedMarker)).as("hinted idempotent by its server: run again")
                .containsExactly("hinted", "hinted");
        assertThat(Kafka.readAll(bootstrap, TOPICS.toolOutcomes, outcome("u1", once))).hasSize(1);

        Path poisonedMarker = dir.resolve("poisoned.txt");
        for (String callId : List.of("v1", "v2")) {
            Kafka.send(asApp, TOPICS.toolDecisions, once, gatekeeper.sign(approved(toolCall(once, callId, TESTER,
                    TOUCH, Map.of("file", poisonedMarker.toString(), "line", callId)))));
        }
        Path otherSessionMarker = dir.resolve("other-session.txt");
        for (String callId : List.of("v1", "v2")) {
            Kafka.send(asApp, TOPICS.toolDecisions, safe, gatekeeper.sign(approved(toolCall(safe, callId, TESTER,
                    TOUCH, Map.of("file", otherSessionMarker.toString(), "line", callId)))));
        }
        call(once, "v3", TESTER, "mcp__test__sleep", Map.of("ms", 1));
        assertThat(awaitResult(TOPICS.toolOutcomes, "v3", once).getStatus()).as("the partition flows on")
                .isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(awaitResult(TOPICS.toolOutcomes, "v2", safe).getStatus()).as("another session's v2")
                .isEqualTo(ToolStatus.SUCCEEDED);
        List<DeadLetter> letters = Kafka.readUntil(bootstrap, TOPICS.deadLetters, letter -> fromDecisions(letter,
                once), seen -> seen.size() >= 2, TIMEOUT);
        assertThat(letters).extracting(DeadLetter::getReason).allSatisfy(reason -> assertThat(reason)
                .contains("its ledger entry cannot be read"));
        assertThat(poisonedMarker).as("a call whose ledger entry is unreadable never runs").doesNotExist();
        assertThat(Kafka.readUntil(bootstrap, TOPICS.deadLetters, letter -> fromDecisions(letter, safe),
                seen -> !seen.isEmpty(), TIMEOUT)).extracting(DeadLetter::getReason).singleElement()
                .satisfies(reason -> assertThat(reason).contains("call id v1").contains("cannot be read"));
        assertThat(Files.readAllLines(otherSessionMarker)).as("v1 refused in every session, v2 only in its own")
                .containsExactly("v2");
    }

    // ---- helpers

    private static void skill(Path skills, String name, List<String> permissions, List<String> retrySafe)
            throws IOException {
        Path folder = Files.createDirectories(skills.resolve(name));
        StringBuilder text = new StringBuilder("---\nname: " + name + "\nversion: 1.0.0\ndescription: test skill\n"
                + "permissions:\n");
        permissions.forEach(permission -> text.append("  - ").append(permission).append('\n'));
        if (!retrySafe.isEmpty()) {
            text.append("retry_safe:\n");
            retrySafe.forEach(permission -> text.append("  - ").append(permission).append('\n'));
        }
        text.append("---\n# ").append(name).append(" protocol\n\nUse the test tools.\n");
        Files.writeString(folder.resolve("SKILL.md"), text);
    }

    private static void call(String session, String callId, String skill, String tool, Map<String, Object> arguments) {
        Kafka.send(asApp, TOPICS.toolCalls, session, toolCall(session, callId, skill, tool, arguments));
    }

    private static ToolCall toolCall(String session, String callId, String skill, String tool,
                                     Map<String, Object> arguments) {
        return ToolCall.newBuilder().setCallId(callId).setSessionId(session).setCaller(skill).setSkill(skill)
                .setTool(tool).setArguments(args(arguments)).setTimestamp(Instant.now()).build();
    }

    /** The key the app's gatekeeper signs with, made by its first start in its state directory. */
    private static DecisionSignatures.Signer appSigner() {
        return new DecisionSignatures.Signer(new Ed25519.Key(Ed25519.loadOrCreate(
                dir.resolve("state").resolve("keys").resolve("gatekeeper-ed25519.pem"))));
    }

    @SafeVarargs
    private static void produceInOneTransaction(ProducerRecord<byte[], byte[]>... records) {
        Map<String, Object> config = new HashMap<>(asApp);
        // Under the app's prefix, the transactional ids it may use.
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "executor-it-" + RUN + "-" + UUID.randomUUID());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (ProducerRecord<byte[], byte[]> record : records) {
                producer.send(record);
            }
            producer.commitTransaction();
        }
    }

    private static boolean fromDecisions(DeadLetter letter, String session) {
        return Topics.TOOL_DECISIONS.equals(letter.getSourceTopic()) && letter.getKey() != null
                && session.equals(StandardCharsets.UTF_8.decode(letter.getKey().duplicate()).toString());
    }

    private static ProducerRecord<byte[], byte[]> decisionRecord(String session, ToolDecision decision) {
        String topic = TOPICS.toolDecisions.name();
        return new ProducerRecord<>(topic, session.getBytes(StandardCharsets.UTF_8),
                TOPICS.toolDecisions.valueSerde().serializer().serialize(topic, decision));
    }

    private static ToolDecision approved(ToolCall call) {
        return ToolDecision.newBuilder().setCall(call).setVerdict(Verdict.APPROVED)
                .setReason("approved: skill \"" + call.getSkill() + "\" is permitted " + call.getTool())
                .setTimestamp(Instant.now()).build();
    }

    private static String args(Map<String, Object> arguments) {
        try {
            return JSON.writeValueAsString(arguments);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static java.util.function.Predicate<ToolDecision> of(String session, String callId) {
        return decision -> session.equals(decision.getCall().getSessionId())
                && callId.equals(decision.getCall().getCallId());
    }

    private static java.util.function.Predicate<ToolResult> outcome(String callId, String session) {
        return result -> session.equals(result.getSessionId()) && callId.equals(result.getCallId());
    }

    private static ToolResult awaitResult(io.cognitionstreams.topics.Topic<String, ToolResult> topic, String callId,
                                          String session) {
        return Kafka.readUntil(bootstrap, topic, outcome(callId, session), seen -> !seen.isEmpty(), TIMEOUT)
                .get(0);
    }

    /** Another session whose tool.decisions partition is that of {@code session} (the default partitioner's). */
    private static String sameDecisionsPartition(String session, String prefix) {
        int partitions = 3; // `run --partitions` default
        int wanted = partition(session, partitions);
        for (int i = 0; ; i++) {
            String other = prefix + RUN + "-" + i;
            if (partition(other, partitions) == wanted) {
                return other;
            }
        }
    }

    private static int partition(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private static void awaitLines(Path marker, int lines) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!Files.exists(marker) || Files.readAllLines(marker).size() < lines) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(marker + " never got " + lines + " lines; the app's log:\n" + app.log());
            }
            Thread.sleep(50);
        }
    }

    /**
     * `cognition run` in a child JVM against the shared broker, with the test MCP server and the test skills,
     * always with the same application id and state directory (so the same signing key). Its output goes to one
     * log file across restarts.
     */
    private static final class Child {
        private static final String RUNNING = "cognition streams running";
        private final Process process;
        private final CountDownLatch running = new CountDownLatch(1);

        private Child(Process process) {
            this.process = process;
            Thread pump = new Thread(this::pump, "executor-it-child-log");
            pump.setDaemon(true);
            pump.start();
        }

        static Child start() {
            // C1 only and one GC thread: the app starts twice per run, on 2 cores shared with the test's broker,
            // and starting is most of this test's time (about 20 s less a run than with the defaults).
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xmx768m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                    System.getProperty("java.class.path"), CognitionCli.class.getName()));
            command.addAll(List.of(Logins.cli(bootstrap, Principals.APP, "run", "--application-id",
                    "executor-it-" + RUN, "--state-dir", dir.resolve("state").toString(), "--skills-dir",
                    dir.resolve("skills").toString(), "--tool-timeout", "150s", "--approval", "never",
                    "--mcp-server", "test=" + String.join(" ", TestMcpServer.config("test").command()),
                    "--model-endpoint", model.baseUrl(), "--auto-continue-steps", "1")));
            // On a secured broker only governance publishes the skills.
            Logins.clientFile(bootstrap, Principals.GOVERNANCE).ifPresent(file -> command.addAll(List.of(
                    "--governance-config", file.toString())));
            try {
                return new Child(new ProcessBuilder(command).redirectErrorStream(true).start());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        boolean awaitRunning(Duration timeout) throws InterruptedException {
            return running.await(timeout.toMillis(), TimeUnit.MILLISECONDS) && process.isAlive();
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor();
        }

        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        }

        static String log() {
            try {
                return Files.readString(dir.resolve("app.log"));
            } catch (IOException e) {
                return "(no log: " + e + ")";
            }
        }

        private void pump() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
                 Writer out = Files.newBufferedWriter(dir.resolve("app.log"), StandardCharsets.UTF_8,
                         StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                out.write("---- child pid " + process.pid() + "\n");
                String line;
                while ((line = lines.readLine()) != null) {
                    out.write(line);
                    out.write('\n');
                    out.flush();
                    if (line.contains(RUNNING)) {
                        running.countDown();
                    }
                }
            } catch (IOException e) {
                // killed mid-line
            }
        }
    }
}
