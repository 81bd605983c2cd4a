package io.cognitionstreams.assembly;

import java.time.Instant;
import java.util.Collection;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Predicate;

import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.HistoryEntry;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.WaitingTurn;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.topics.Topics;

/**
 * The assembly's stores as a {@link SessionAssembly.Memory}. A session's messages are one store entry each under
 * {@code <session>/<10-digit sequence>}, so that assembling a turn reads only the newest messages that fit its
 * budget (a reverse range scan) and costs the same at 10 turns or 1,000. Each message is counted once, when it is
 * added, in the session's encoding. Skills, identity, personas and the executors' tools are the global stores,
 * read decoded ({@link GlobalRecords}).
 */
final class SessionStore implements SessionAssembly.Memory {

    private final KeyValueStore<String, SessionState> sessions;
    private final KeyValueStore<String, HistoryEntry> history;
    private final KeyValueStore<String, WaitingTurn> waiting;
    private final EpisodicMemory episodic;
    private final Predicate<String> holdsScope;
    private final GlobalRecords globals;

    /**
     * @param episodic   the memories of the scopes this task holds
     * @param holdsScope whether this task holds a scope's memories
     * @param globals    skills, identity, personas and tools, as the global stores hold them
     */
    SessionStore(KeyValueStore<String, SessionState> sessions, KeyValueStore<String, HistoryEntry> history,
                 KeyValueStore<String, WaitingTurn> waiting, EpisodicMemory episodic, Predicate<String> holdsScope,
                 GlobalRecords globals) {
        this.sessions = sessions;
        this.history = history;
        this.waiting = waiting;
        this.episodic = episodic;
        this.holdsScope = holdsScope;
        this.globals = globals;
    }

    @Override
    public boolean holdsScope(String scope) {
        return holdsScope.test(scope);
    }

    @Override
    public AssemblyInput.MemorySearch memories(String scope, Optional<Instant> asOf) {
        return episodic.in(scope, asOf);
    }

    @Override
    public Optional<WaitingTurn> waiting(String session, long sequence) {
        return Optional.ofNullable(waiting.get(Topics.sequenceKey(session, sequence)));
    }

    @Override
    public void waiting(String session, long sequence, WaitingTurn turn) {
        waiting.put(Topics.sequenceKey(session, sequence), turn);
    }

    @Override
    public void doneWaiting(String session, long sequence) {
        waiting.delete(Topics.sequenceKey(session, sequence));
    }

    @Override
    public SessionState state(String session) {
        SessionState state = sessions.get(session);
        return state != null ? state : SessionState.newBuilder().build();
    }

    @Override
    public void state(String session, SessionState state) {
        sessions.put(session, state);
    }

    @Override
    public void append(String session, long sequence, ChatMessage message, String encoding, String packetId) {
        history.put(Topics.sequenceKey(session, sequence), HistoryEntry.newBuilder()
                .setMessage(message).setEncoding(encoding).setPacketId(packetId).build());
    }

    /** Counts made in another encoding are recounted with {@code counter}. */
    @Override
    public SessionAssembly.History newestFirst(String session, long until, TokenCounter counter) {
        return new NewestFirst(until == 0 ? null
                : history.reverseRange(Topics.sequenceKey(session, 0), Topics.sequenceKey(session, until - 1)),
                counter);
    }

    @Override
    public Optional<Skill> skill(String name) {
        return globals.skills().get(name);
    }

    @Override
    public Collection<Skill> skills() {
        return globals.skills().values();
    }

    @Override
    public Optional<Persona> persona(String name) {
        return globals.personas().get(name);
    }

    @Override
    public Collection<String> personaNames() {
        return globals.personas().values().stream().map(Persona::getName).toList();
    }

    @Override
    public RenderedTools tools() {
        return globals.tools().derived(RenderedTools::of);
    }

    @Override
    public Optional<String> identity() {
        return globals.identity().get(IdentityGovernance.KEY).map(Identity::getText);
    }

    private static final class NewestFirst implements SessionAssembly.History {
        private final KeyValueIterator<String, HistoryEntry> entries;
        private final TokenCounter counter;

        private NewestFirst(KeyValueIterator<String, HistoryEntry> entries, TokenCounter counter) {
            this.entries = entries;
            this.counter = counter;
        }

        @Override
        public boolean hasNext() {
            return entries != null && entries.hasNext();
        }

        @Override
        public ChatMessage next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            HistoryEntry entry = entries.next().value;
            ChatMessage message = entry.getMessage();
            if (!entry.getEncoding().equals(counter.encodingName()) || message.getTokenCount() == null) {
                return ChatMessage.newBuilder(message).setTokenCount(PromptRenderer.tokens(message, counter))
                        .build();
            }
            return message;
        }

        @Override
        public void close() {
            if (entries != null) {
                entries.close();
            }
        }
    }
}
