package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;

class ToolMessagesTest {

    private static ToolResult.Builder result(ToolStatus status) {
        return ToolResult.newBuilder()
                .setCallId("s1-b1")
                .setSessionId("s1")
                .setTool("mcp__git__status")
                .setSuccess(status == ToolStatus.SUCCEEDED)
                .setStatus(status)
                .setTimestamp(Instant.parse("2026-11-22T10:00:00Z"));
    }

    @Test
    void aSucceededCallSaysItsOutputAndNothingElse() {
        assertThat(ToolMessages.content(result(ToolStatus.SUCCEEDED).setText("clean").setJson("{\"clean\": true}")
                .build())).isEqualTo("clean");
        assertThat(ToolMessages.content(result(ToolStatus.SUCCEEDED).setJson("{\"clean\": true}").build()))
                .isEqualTo("{\"clean\": true}");
        assertThat(ToolMessages.content(result(ToolStatus.SUCCEEDED).build())).isEqualTo("(no output)");
    }

    @Test
    void emptyTextDoesNotHideTheJson() {
        // An MCP tool may return only structured content: its text is then empty, and the JSON is the answer.
        assertThat(ToolMessages.content(result(ToolStatus.SUCCEEDED).setText("").setJson("{\"files\": [\"a\"]}")
                .build())).isEqualTo("{\"files\": [\"a\"]}");
        assertThat(ToolMessages.content(result(ToolStatus.SUCCEEDED).setText("").build())).isEqualTo("(no output)");
        assertThat(ToolMessages.content(result(ToolStatus.FAILED).setError("exit status 1").setText("").build()))
                .isEqualTo("FAILED: exit status 1");
    }

    @Test
    void anyOtherEndSaysHowTheCallEndedThenWhatItPrinted() {
        assertThat(ToolMessages.content(result(ToolStatus.FAILED).setError("exit status 2")
                .setText("ls: cannot access 'x'").build()))
                .isEqualTo("FAILED: exit status 2\nls: cannot access 'x'");
        assertThat(ToolMessages.content(result(ToolStatus.TIMED_OUT).setError("took over 30s").build()))
                .isEqualTo("TIMED_OUT: took over 30s");
        assertThat(ToolMessages.content(result(ToolStatus.DENIED).build())).isEqualTo("DENIED");
        assertThat(ToolMessages.content(result(ToolStatus.UNKNOWN_OUTCOME).setError("the executor stopped")
                .build())).isEqualTo("UNKNOWN_OUTCOME: the executor stopped");
        assertThat(ToolMessages.content(result(ToolStatus.NOT_EXECUTED).setJson("{}").build()))
                .isEqualTo("NOT_EXECUTED\n{}");
    }

    @Test
    void aResultWrittenBeforeStatusesExistedIsReadBySuccess() {
        assertThat(ToolMessages.content(result(ToolStatus.SUCCEEDED).setStatus(null).setText("ok").build()))
                .isEqualTo("ok");
        assertThat(ToolMessages.content(result(ToolStatus.FAILED).setStatus(null).setError("boom").setText("out")
                .build())).isEqualTo("FAILED: boom\nout");
    }

    @Test
    void theStatusWinsOverASuccessFlagThatContradictsIt() {
        assertThat(ToolMessages.content(result(ToolStatus.TIMED_OUT).setSuccess(true).setText("partial").build()))
                .isEqualTo("TIMED_OUT\npartial");
    }
}
