package io.cognitionstreams.gatekeeper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.PendingApproval;
import io.cognitionstreams.schema.ToolResult;

/**
 * {@link GatekeeperSessions.Memory} in the gatekeeper's stores, which also remembers which sessions it changed, so
 * the processor can publish them on gatekeeper.sessions (the public view of the state) after each record.
 */
final class SessionsStore implements GatekeeperSessions.Memory {

    private final KeyValueStore<String, GatekeeperSession> sessions;
    private final WindowStore<String, ToolResult> results;
    private final KeyValueStore<String, PendingApproval> pending;
    private final KeyValueStore<String, String> turns;
    private final ProcessorContext<?, ?> context;
    /** Sessions changed by the record in hand: their new state, or null for one forgotten. */
    private final Map<String, GatekeeperSession> changed = new LinkedHashMap<>();

    SessionsStore(ProcessorContext<?, ?> context) {
        this.context = context;
        this.sessions = context.getStateStore(GatekeeperTopology.ACTIVE_SKILLS_STORE);
        this.results = context.getStateStore(GatekeeperTopology.RESULTS_STORE);
        this.pending = context.getStateStore(GatekeeperTopology.PENDING_STORE);
        this.turns = context.getStateStore(GatekeeperTopology.TURNS_STORE);
    }

    @Override
    public Optional<PendingApproval> pending(String session, String proposalId) {
        return Optional.ofNullable(pending.get(resultKey(session, proposalId)));
    }

    @Override
    public void pending(String session, String proposalId, PendingApproval approval) {
        if (approval == null) {
            pending.delete(resultKey(session, proposalId));
        } else {
            pending.put(resultKey(session, proposalId), approval);
        }
    }

    /** Every call of this task waiting for its council, for the approval timeout. */
    List<PendingApproval> allPending() {
        List<PendingApproval> all = new ArrayList<>();
        try (KeyValueIterator<String, PendingApproval> entries = pending.all()) {
            entries.forEachRemaining(entry -> all.add(entry.value));
        }
        return all;
    }

    @Override
    public Optional<ToolResult> result(String session, String callId) {
        try (WindowStoreIterator<ToolResult> newestFirst = results.backwardFetch(resultKey(session, callId), 0L,
                Long.MAX_VALUE)) {
            return newestFirst.hasNext() ? Optional.of(newestFirst.next().value) : Optional.empty();
        }
    }

    @Override
    public void result(ToolResult result) {
        results.put(resultKey(result.getSessionId(), result.getCallId()), result, context.currentStreamTimeMs());
    }

    @Override
    public Optional<GatekeeperSession> session(String session) {
        return Optional.ofNullable(sessions.get(session));
    }

    @Override
    public void session(String session, GatekeeperSession state) {
        sessions.put(session, state);
        changed.put(session, state);
    }

    @Override
    public void forget(String session) {
        sessions.delete(session);
        turns.delete(session);
        changed.put(session, null);
        List<Windowed<String>> recorded = new ArrayList<>();
        // '0' follows '/': the range is the keys that start with "<session>/".
        try (KeyValueIterator<Windowed<String>, ToolResult> range = results.fetch(resultKey(session, ""),
                session + "0", 0L, Long.MAX_VALUE)) {
            range.forEachRemaining(entry -> recorded.add(entry.key));
        }
        recorded.forEach(entry -> results.put(entry.key(), null, entry.window().start()));
    }

    @Override
    public Optional<String> turns(String session) {
        return Optional.ofNullable(turns.get(session));
    }

    @Override
    public void turns(String session, String text) {
        turns.put(session, text);
    }

    /** Hands over each session changed since the last call (null: forgotten), and forgets them. */
    void drainChanges(BiConsumer<String, GatekeeperSession> each) {
        changed.forEach(each);
        changed.clear();
    }

    private static String resultKey(String session, String callId) {
        return session + "/" + callId;
    }
}
