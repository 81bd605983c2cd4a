package io.cognitionstreams.executor;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.schema.LedgerState;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolLedgerEntry;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.topics.LedgerKey;

/**
 * What the executor knows of each call it was given, by partition of tool.decisions: the entries of tool.ledger
 * read back when a partition is assigned, and kept current as the executor commits new ones. It answers one
 * question, what to do with a decision ({@link #plan}), which is where "at most once" is decided. Plain Java; used
 * by the executor's poll thread only.
 */
final class CallLedger {

    /** What to do with an approved decision. */
    enum Plan {
        /** Never seen: run it. */
        RUN,
        /** Started before a crash, and retry-safe: run it again. */
        RERUN,
        /** Started before a crash, not retry-safe: it may have run, so report that, never run it a second time. */
        REPORT_UNKNOWN,
        /** Finished: this is the executor's own re-read of the same record; nothing to do. */
        DONE,
        /** Another decision record already carried this session's call id: refuse it. */
        DUPLICATE
    }

    /** By partition, each call's entry under its {@link LedgerKey}. */
    private final Map<Integer, Map<LedgerKey, ToolLedgerEntry>> partitions = new HashMap<>();

    void assign(int partition) {
        partitions.put(partition, new HashMap<>());
    }

    void revoke(int partition) {
        partitions.remove(partition);
    }

    /** An entry just committed, or read back: filed under the session and call id it names. */
    void record(int partition, ToolLedgerEntry entry) {
        calls(partition).put(new LedgerKey(entry.getSessionId(), entry.getCallId()), entry);
    }

    /**
     * A tombstone read back: forgets the call its key names. A key of the call id alone, written before keys named
     * the session, forgets that call id's entries, all of which were written before it.
     */
    void forget(int partition, String key) {
        Optional<LedgerKey> named = LedgerKey.parse(key);
        if (named.isPresent()) {
            calls(partition).remove(named.get());
        } else {
            calls(partition).keySet().removeIf(known -> known.callId().equals(key));
        }
    }

    Plan plan(int partition, long offset, String sessionId, String callId, boolean retrySafe) {
        ToolLedgerEntry entry = entry(partition, sessionId, callId);
        if (entry == null) {
            return Plan.RUN;
        }
        if (entry.getDecisionOffset() != offset) {
            return Plan.DUPLICATE;
        }
        if (entry.getState() == LedgerState.FINISHED) {
            return Plan.DONE;
        }
        return retrySafe ? Plan.RERUN : Plan.REPORT_UNKNOWN;
    }

    /**
     * The entry of the session's call, if any: for messages about duplicates. An unreadable entry of a key without a
     * session (see {@link LedgerRestore}) is every session's.
     */
    ToolLedgerEntry entry(int partition, String sessionId, String callId) {
        Map<LedgerKey, ToolLedgerEntry> calls = partitions.getOrDefault(partition, Map.of());
        ToolLedgerEntry entry = calls.get(new LedgerKey(sessionId, callId));
        return entry != null ? entry : calls.get(new LedgerKey(LedgerRestore.ANY_SESSION, callId));
    }

    private Map<LedgerKey, ToolLedgerEntry> calls(int partition) {
        return partitions.computeIfAbsent(partition, p -> new HashMap<>());
    }

    static ToolLedgerEntry started(Call call, int runs, Instant now) {
        return entryOf(call)
                .setState(LedgerState.STARTED)
                .setExecutor(call.executor())
                .setStartedAt(now)
                .setDecisionOffset(call.offset())
                .setRuns(runs)
                .build();
    }

    static ToolLedgerEntry finished(Call call, ToolStatus status, Instant startedAt, int runs, Instant now) {
        return entryOf(call)
                .setState(LedgerState.FINISHED)
                .setStatus(status)
                .setExecutor(call.executor())
                .setStartedAt(startedAt)
                .setFinishedAt(now)
                .setDecisionOffset(call.offset())
                .setRuns(runs)
                .build();
    }

    /** An entry of {@code call}, with the call's ids and lineage. */
    private static ToolLedgerEntry.Builder entryOf(Call call) {
        ToolCall decided = call.call();
        return ToolLedgerEntry.newBuilder()
                .setCallId(decided.getCallId())
                .setSessionId(decided.getSessionId())
                .setTool(decided.getTool())
                .setTimeTravel(decided.getTimeTravel())
                .setParentId(decided.getParentId())
                .setOriginSessionId(decided.getOriginSessionId());
    }

    /** What the ledger needs of a call: the approved call, its executor, and where its decision is. */
    record Call(ToolCall call, String executor, long offset) {
    }
}
