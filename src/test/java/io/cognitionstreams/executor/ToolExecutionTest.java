package io.cognitionstreams.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;

class ToolExecutionTest {

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    /** What the fake shell was asked to run: session and command. */
    private final List<String> ran = new ArrayList<>();
    private final ToolExecution.ShellTool shell = (session, command) -> {
        ran.add(session + ": " + command);
        return Outcome.succeeded("ran " + command, null, 3);
    };
    private final McpServers noServers = new McpServers(List.of(), Duration.ofSeconds(1), 1000);
    private final ToolExecution execution = new ToolExecution(noServers, Optional.of(shell), Duration.ofSeconds(1));

    private static ToolCall call(String tool, String arguments) {
        return ToolCall.newBuilder()
                .setCallId("s1-b1")
                .setSessionId("s1")
                .setPacketId("0a1b2c3d")
                .setCallCount(2)
                .setCaller("ops")
                .setTool(tool)
                .setArguments(arguments)
                .setTimestamp(T0)
                .build();
    }

    private Outcome runShell(String arguments) {
        return execution.run(call("shell.run", arguments), new ToolTarget.Shell());
    }

    @Test
    void theShellRunsTheCommandOfTheArgumentsInTheCallsSession() {
        Outcome outcome = runShell("{\"command\": \"ls -la \\\"my dir\\\"\\n\\u0065cho ok\"}");

        assertThat(outcome).isEqualTo(Outcome.succeeded("ran ls -la \"my dir\"\necho ok", null, 3));
        assertThat(ran).containsExactly("s1: ls -la \"my dir\"\necho ok");
    }

    @Test
    void argumentsThatAreNotJsonAreRefusedUnrun() {
        for (String arguments : new String[] {"ls -la", "{\"command\": \"ls\"", "{command: 'ls'}", "\"{}"}) {
            Outcome outcome = runShell(arguments);

            assertThat(outcome.status()).as(arguments).isEqualTo(ToolStatus.FAILED);
            assertThat(outcome.error()).as(arguments).startsWith("not run: the arguments are not JSON (");
        }
        assertThat(ran).isEmpty();
    }

    @Test
    void argumentsThatAreJsonButNotAnObjectAreRefusedUnrun() {
        for (String arguments : new String[] {"[\"ls\"]", "\"ls\"", "42", "null", "true", "", "  "}) {
            assertThat(runShell(arguments).error()).as(arguments)
                    .isEqualTo("not run: the arguments must be a JSON object");
        }
        assertThat(ran).isEmpty();
    }

    @Test
    void anythingAfterTheArgumentsObjectIsRefusedNotIgnored() {
        // What was approved and signed is the whole text: running only its first object would run something else.
        for (String arguments : new String[] {"{\"command\": \"ls\"} {\"command\": \"rm -rf ~\"}",
                "{\"command\": \"ls\"}; rm -rf ~", "{\"command\": \"ls\"}]"}) {
            assertThat(runShell(arguments).error()).as(arguments).startsWith("not run: the arguments are not JSON");
        }
        assertThat(runShell("\n {\"command\": \"ls\"} \n").succeeded()).as("whitespace is no content").isTrue();
        assertThat(ran).containsExactly("s1: ls");
    }

    @Test
    void argumentsWithAFieldTwiceAreRefusedAsAmbiguous() {
        // A reader may take the first "command", the parser the last one.
        Outcome outcome = runShell("{\"command\": \"ls\", \"command\": \"rm -rf ~\"}");

        assertThat(outcome.error()).startsWith("not run: the arguments are not JSON").contains("command");
        assertThat(ran).isEmpty();
    }

    @Test
    void argumentsARedactionScrubbedAreNeverRun() {
        for (String arguments : new String[] {"{\"command\": \"curl -H 'Authorization: [REDACTED:API_KEY]' x\"}",
                "{\"token\": \"[REDACTED:SECRET]\"}", "{\"[REDACTED:EMAIL]\": 1, \"command\": \"ls\"}"}) {
            assertThat(runShell(arguments).error()).as(arguments)
                    .startsWith("not run: the arguments held a secret, which was redacted before approval");
        }
        assertThat(ran).isEmpty();
    }

    @Test
    void theShellNeedsANonBlankTextCommand() {
        for (String arguments : new String[] {"{}", "{\"cmd\": \"ls\"}", "{\"command\": \"\"}",
                "{\"command\": \" \\t\\n\"}", "{\"command\": [\"ls\"]}", "{\"command\": 1}",
                "{\"command\": null}"}) {
            assertThat(runShell(arguments).error()).as(arguments)
                    .isEqualTo("not run: shell.run takes {\"command\": \"...\"}");
        }
        assertThat(ran).isEmpty();
    }

    @Test
    void anUnservedCallIsAnsweredWithItsErrorUnrun() {
        Outcome outcome = execution.run(call("mcp__github__x", "{}"),
                new ToolTarget.Unserved("no MCP server named github is configured on this executor"));

        assertThat(outcome).isEqualTo(Outcome.notRun(
                "not run: no MCP server named github is configured on this executor"));
    }

    @Test
    void anMcpCallToAServerThatIsNotThereFailsUnrun() {
        Outcome outcome = execution.run(call("mcp__git__status", "{\"path\": \".\"}"),
                new ToolTarget.Mcp("git", "status"));

        assertThat(outcome.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(outcome.error()).startsWith("no MCP server is named git");
        assertThat(ran).isEmpty();
    }

    @Test
    void aCallForAnotherExecutorIsAProgrammingError() {
        assertThatThrownBy(() -> execution.run(call("github.x", "{}"), new ToolTarget.Elsewhere()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no executor here for github.x");
    }

    @Test
    void theShellIsATargetOnlyWhenItIsOn() {
        ToolExecution withoutShell = new ToolExecution(noServers, Optional.empty(), Duration.ofSeconds(1));

        assertThat(execution.target("shell.run")).isEqualTo(new ToolTarget.Shell());
        assertThat(withoutShell.target("shell.run")).isEqualTo(new ToolTarget.Elsewhere());
        assertThat(execution.target("mcp__git__status")).isInstanceOf(ToolTarget.Unserved.class);
        assertThat(execution.callTimeout()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void onlyADecisionOrAServersHintMakesACallRetrySafe() {
        ToolDecision decision = ToolDecision.newBuilder()
                .setCall(call("shell.run", "{}"))
                .setVerdict(Verdict.APPROVED)
                .setReason("approved")
                .setTimestamp(T0)
                .build();

        assertThat(execution.retrySafe(decision, new ToolTarget.Shell())).isFalse();
        assertThat(execution.retrySafe(decision, new ToolTarget.Mcp("git", "status"))).as("no server, no hint")
                .isFalse();
        decision.setRetrySafe(true);
        assertThat(execution.retrySafe(decision, new ToolTarget.Shell())).isTrue();
    }

    @Test
    void theExecutorIsNamedByTarget() {
        assertThat(ToolExecution.executor(new ToolTarget.Mcp("git", "status"))).isEqualTo("mcp:git");
        assertThat(ToolExecution.executor(new ToolTarget.Shell())).isEqualTo("shell");
        assertThat(ToolExecution.executor(new ToolTarget.Unserved("x"))).isEqualTo("executor");
    }

    @Test
    void aResultCarriesTheCallsLineageAndTheOutcome() {
        ToolCall forked = ToolCall.newBuilder(call("mcp__git__status", "{}")).setTimeTravel(TimeTravel.FORK_EXECUTE)
                .setParentId("pk1-out#0").setOriginSessionId("s0").build();
        ToolResult result = ToolExecution.result(forked, Outcome.timedOut("took over 1s", "partial", 1000), "mcp:git",
                T0.plusSeconds(2));

        assertThat(result.getCallId()).isEqualTo("s1-b1");
        assertThat(result.getSessionId()).isEqualTo("s1");
        assertThat(result.getTool()).isEqualTo("mcp__git__status");
        assertThat(result.getPacketId()).isEqualTo("0a1b2c3d");
        assertThat(result.getCallCount()).isEqualTo(2);
        assertThat(result.getSuccess()).isFalse();
        assertThat(result.getStatus()).isEqualTo(ToolStatus.TIMED_OUT);
        assertThat(result.getText()).isEqualTo("partial");
        assertThat(result.getJson()).isNull();
        assertThat(result.getError()).isEqualTo("took over 1s");
        assertThat(result.getExecutor()).isEqualTo("mcp:git");
        assertThat(result.getDurationMs()).isEqualTo(1000);
        assertThat(result.getTimestamp()).isEqualTo(T0.plusSeconds(2));
        assertThat(result.getTimeTravel()).as("a fork's result never starts a turn on its own")
                .isEqualTo(TimeTravel.FORK_EXECUTE);
        assertThat(result.getParentId()).isEqualTo("pk1-out#0");
        assertThat(result.getOriginSessionId()).isEqualTo("s0");
    }

    @Test
    void aSucceededResultKeepsTextAndJson() {
        ToolResult result = ToolExecution.result(call("mcp__git__status", "{}"),
                Outcome.succeeded("clean", "{\"clean\": true}", 12), "mcp:git", T0);

        assertThat(result.getSuccess()).isTrue();
        assertThat(result.getStatus()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(result.getText()).isEqualTo("clean");
        assertThat(result.getJson()).isEqualTo("{\"clean\": true}");
        assertThat(result.getError()).isNull();
    }

    @Test
    void anUnknownOutcomeSaysWhenTheCallStartedAndThatItIsNotRunAgain() {
        ToolResult result = ToolExecution.unknownOutcome(call("shell.run", "{\"command\": \"make deploy\"}"),
                "shell", T0, T0.plusSeconds(60));

        assertThat(result.getStatus()).isEqualTo(ToolStatus.UNKNOWN_OUTCOME);
        assertThat(result.getSuccess()).isFalse();
        assertThat(result.getError())
                .contains("started " + T0)
                .contains("may or may not have taken effect")
                .contains("not run a second time");
        assertThat(result.getText()).isNull();
        assertThat(result.getDurationMs()).isZero();
        assertThat(result.getExecutor()).isEqualTo("shell");
        assertThat(result.getTimestamp()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void outcomesNeedAStatus() {
        assertThatThrownBy(() -> new Outcome(null, "x", null, null, 0)).isInstanceOf(NullPointerException.class);
        assertThat(Outcome.unknown("lost", 5).succeeded()).isFalse();
        assertThat(Outcome.failed("exit 1", "out", 5).succeeded()).isFalse();
    }
}
