package io.cognitionstreams.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.executor.CallLedger.Plan;
import io.cognitionstreams.schema.LedgerState;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolLedgerEntry;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.topics.LedgerKey;

class CallLedgerTest {

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    private static final CallLedger.Call CALL = new CallLedger.Call(call("s1-b1", "s1", "mcp__git__commit"), "mcp:git",
            42);

    private final CallLedger ledger = new CallLedger();

    @Test
    void aCallNeverSeenRunsWhateverItsRetrySafety() {
        ledger.assign(0);

        assertThat(ledger.plan(0, 42, "s1", "s1-b1", false)).isEqualTo(Plan.RUN);
        assertThat(ledger.plan(0, 42, "s1", "s1-b1", true)).isEqualTo(Plan.RUN);
        assertThat(ledger.entry(0, "s1", "s1-b1")).isNull();
    }

    @Test
    void aCallStartedBeforeACrashRunsAgainOnlyWhenRetrySafe() {
        ledger.assign(0);
        ledger.record(0, CallLedger.started(CALL, 1, T0));

        assertThat(ledger.plan(0, 42, "s1", "s1-b1", true)).isEqualTo(Plan.RERUN);
        assertThat(ledger.plan(0, 42, "s1", "s1-b1", false)).isEqualTo(Plan.REPORT_UNKNOWN);
    }

    @Test
    void aFinishedCallIsDoneWhenItsOwnDecisionIsReadAgain() {
        ledger.record(0, CallLedger.finished(CALL, ToolStatus.FAILED, T0, 1, T0.plusSeconds(1)));

        assertThat(ledger.plan(0, 42, "s1", "s1-b1", false)).isEqualTo(Plan.DONE);
        assertThat(ledger.plan(0, 42, "s1", "s1-b1", true)).isEqualTo(Plan.DONE);
    }

    @Test
    void anotherDecisionWithAKnownCallIdIsADuplicateWhateverTheEntrysState() {
        // A replayed or forged record with a used call id must never run the call a second time.
        ledger.record(0, CallLedger.started(CALL, 1, T0));
        ledger.record(1, CallLedger.finished(CALL, ToolStatus.SUCCEEDED, T0, 1, T0));

        assertThat(ledger.plan(0, 43, "s1", "s1-b1", true)).isEqualTo(Plan.DUPLICATE);
        assertThat(ledger.plan(0, 41, "s1", "s1-b1", false)).isEqualTo(Plan.DUPLICATE);
        assertThat(ledger.plan(1, 43, "s1", "s1-b1", true)).isEqualTo(Plan.DUPLICATE);
    }

    @Test
    void entriesArePerPartition() {
        ledger.record(0, CallLedger.finished(CALL, ToolStatus.SUCCEEDED, T0, 1, T0));

        assertThat(ledger.plan(1, 42, "s1", "s1-b1", false)).isEqualTo(Plan.RUN);
        assertThat(ledger.entry(1, "s1", "s1-b1")).isNull();
    }

    @Test
    void theLatestEntryOfACallCounts() {
        ledger.record(0, CallLedger.started(CALL, 1, T0));
        ledger.record(0, CallLedger.finished(CALL, ToolStatus.SUCCEEDED, T0, 1, T0.plusSeconds(1)));

        assertThat(ledger.plan(0, 42, "s1", "s1-b1", false)).isEqualTo(Plan.DONE);
    }

    @Test
    void aTombstoneForgetsTheCall() {
        ledger.record(0, CallLedger.started(CALL, 1, T0));
        ledger.forget(0, new LedgerKey("s1", "s1-b1").text());

        assertThat(ledger.plan(0, 43, "s1", "s1-b1", false)).isEqualTo(Plan.RUN);
        assertThat(ledger.entry(0, "s1", "s1-b1")).isNull();
    }

    @Test
    void aRevokedPartitionIsForgottenAndAReassignedOneStartsEmpty() {
        // After a rebalance the ledger is read back from tool.ledger: nothing of the old assignment may linger.
        ledger.record(0, CallLedger.started(CALL, 1, T0));
        ledger.record(1, CallLedger.started(CALL, 1, T0));

        ledger.revoke(0);
        ledger.assign(1);

        assertThat(ledger.entry(0, "s1", "s1-b1")).isNull();
        assertThat(ledger.plan(0, 42, "s1", "s1-b1", false)).isEqualTo(Plan.RUN);
        assertThat(ledger.entry(1, "s1", "s1-b1")).isNull();
    }

    @Test
    void aStartedEntryCarriesWhatTheLedgerNeedsToJudgeTheCallAfterACrash() {
        ToolLedgerEntry started = CallLedger.started(CALL, 2, T0);

        assertThat(started.getCallId()).isEqualTo("s1-b1");
        assertThat(started.getSessionId()).isEqualTo("s1");
        assertThat(started.getTool()).isEqualTo("mcp__git__commit");
        assertThat(started.getExecutor()).isEqualTo("mcp:git");
        assertThat(started.getState()).isEqualTo(LedgerState.STARTED);
        assertThat(started.getStatus()).isNull();
        assertThat(started.getStartedAt()).isEqualTo(T0);
        assertThat(started.getFinishedAt()).isNull();
        assertThat(started.getDecisionOffset()).isEqualTo(42);
        assertThat(started.getRuns()).isEqualTo(2);
    }

    @Test
    void aFinishedEntryKeepsWhenTheCallStartedAndSaysHowItEnded() {
        ToolLedgerEntry finished = CallLedger.finished(CALL, ToolStatus.TIMED_OUT, T0, 3, T0.plusSeconds(30));

        assertThat(finished.getState()).isEqualTo(LedgerState.FINISHED);
        assertThat(finished.getStatus()).isEqualTo(ToolStatus.TIMED_OUT);
        assertThat(finished.getStartedAt()).isEqualTo(T0);
        assertThat(finished.getFinishedAt()).isEqualTo(T0.plusSeconds(30));
        assertThat(finished.getDecisionOffset()).isEqualTo(42);
        assertThat(finished.getRuns()).isEqualTo(3);
        assertThat(finished.getExecutor()).isEqualTo("mcp:git");
    }

    @Test
    void anEntryOfAForkedCallSaysWhichCallItReRuns() {
        ToolCall forked = ToolCall.newBuilder(CALL.call()).setTimeTravel(TimeTravel.FORK_EXECUTE)
                .setParentId("pk1-out#0").setOriginSessionId("s0").build();

        ToolLedgerEntry started = CallLedger.started(new CallLedger.Call(forked, "mcp:git", 42), 1, T0);

        assertThat(started.getTimeTravel()).isEqualTo(TimeTravel.FORK_EXECUTE);
        assertThat(started.getParentId()).isEqualTo("pk1-out#0");
        assertThat(started.getOriginSessionId()).isEqualTo("s0");
        assertThat(started.getCallId()).isEqualTo("s1-b1");
    }

    @Test
    void anUnreadableEntryMakesEveryDecisionForItsCallADuplicate() {
        // LedgerRestore records an entry it cannot read at an offset no decision has: whether it ran is unknown.
        ledger.record(0, CallLedger.started(new CallLedger.Call(call("s1-b1", "s1", "?"), "?",
                LedgerRestore.UNREADABLE), 1, T0));

        assertThat(ledger.plan(0, 42, "s1", "s1-b1", true)).isEqualTo(Plan.DUPLICATE);
        assertThat(ledger.plan(0, 0, "s1", "s1-b1", true)).isEqualTo(Plan.DUPLICATE);
    }

    @Test
    void twoSessionsCallsWithOneIdAreTwoCalls() {
        // Routing's call ids derive from 8-hex packet ids, which collide between sessions; an agent names its own.
        ledger.record(0, CallLedger.finished(CALL, ToolStatus.SUCCEEDED, T0, 1, T0));

        assertThat(ledger.plan(0, 43, "s2", "s1-b1", false)).isEqualTo(Plan.RUN);
        ledger.record(0, CallLedger.started(new CallLedger.Call(call("s1-b1", "s2", "mcp__git__commit"), "mcp:git",
                43), 1, T0));
        assertThat(ledger.plan(0, 43, "s2", "s1-b1", false)).isEqualTo(Plan.REPORT_UNKNOWN);
        assertThat(ledger.plan(0, 42, "s1", "s1-b1", false)).as("the first session's entry is still its own")
                .isEqualTo(Plan.DONE);
    }

    @Test
    void aTombstoneOfASessionsCallLeavesTheOtherSessionsCallOfThatId() {
        ledger.record(0, CallLedger.started(CALL, 1, T0));
        ledger.record(0, CallLedger.started(new CallLedger.Call(call("s1-b1", "s2", "?"), "?", 43), 1, T0));

        ledger.forget(0, new LedgerKey("s2", "s1-b1").text());

        assertThat(ledger.entry(0, "s2", "s1-b1")).isNull();
        assertThat(ledger.entry(0, "s1", "s1-b1")).isNotNull();
    }

    @Test
    void aTombstoneKeyedByTheCallIdAloneForgetsThatCallIdAsVersionsBeforeLedgerKeysMeantIt() {
        ledger.record(0, CallLedger.started(CALL, 1, T0));
        ledger.record(0, CallLedger.started(new CallLedger.Call(call("other", "s1", "?"), "?", 44), 1, T0));

        ledger.forget(0, "s1-b1");

        assertThat(ledger.entry(0, "s1", "s1-b1")).isNull();
        assertThat(ledger.entry(0, "s1", "other")).isNotNull();
    }

    @Test
    void anUnreadableEntryOfNoSessionRefusesItsCallIdInEverySession() {
        // An unreadable entry keyed by the call id alone: which session it was is lost with it.
        ledger.record(0, CallLedger.started(new CallLedger.Call(call("s1-b1", LedgerRestore.ANY_SESSION, "?"), "?",
                LedgerRestore.UNREADABLE), 1, T0));

        assertThat(ledger.plan(0, 42, "s1", "s1-b1", true)).isEqualTo(Plan.DUPLICATE);
        assertThat(ledger.plan(0, 42, "s2", "s1-b1", true)).isEqualTo(Plan.DUPLICATE);
        assertThat(ledger.plan(0, 42, "s2", "s1-b2", true)).isEqualTo(Plan.RUN);
    }

    private static ToolCall call(String callId, String session, String tool) {
        return ToolCall.newBuilder().setCallId(callId).setSessionId(session).setCaller("git").setTool(tool)
                .setTimestamp(T0).build();
    }
}
