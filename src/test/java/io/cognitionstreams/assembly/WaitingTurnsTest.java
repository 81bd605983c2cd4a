package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.MemoryLookup;
import io.cognitionstreams.schema.MemoryRecall;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.WaitingTurn;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topics;

/**
 * A session's turns whose memory scope another task holds wait for its memories, and the turns after them wait
 * behind them, however their memories come back: a session's packets are built in the order its requests came.
 */
class WaitingTurnsTest {

    private static final String FAR = "billing-team";
    private static final EmbeddingModel MODEL = new EmbeddingModel(StaticEmbedder.MODEL,
            sentences -> sentences.stream().map(text -> new float[384]).toList());

    private final Tokenizers tokenizers = new Tokenizers();
    private final SessionAssembly sessions = new SessionAssembly(new PacketAssembler(tokenizers,
            TaskInstructions.defaults(tokenizers), ContextLayers.defaults(AssemblyTopologyTest.PREFIX_COMPRESSOR),
            AssemblyTopologyTest.PREFIX_COMPRESSOR), MODEL, 0, SessionBudgets.NONE);
    private final InMemory memory = new InMemory();
    private final List<CognitionPacket> packets = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();
    private final SessionAssembly.Drain drain = new SessionAssembly.Drain() {
        @Override
        public void assembled(SessionAssembly.Turn turn, WaitingTurn waited) {
            packets.add(turn.packet());
            turn.remember().run();
        }

        @Override
        public void refused(WaitingTurn waited, RuntimeException why) {
            refused.add(waited.getRequest().getRequestId() + ": " + why.getMessage());
        }
    };

    @Test
    void turnsWaitInOrderWhateverOrderTheirMemoriesComeBackIn() {
        MemoryLookup first = lookup(arrive(request("r1", "Who owns the invoices service?").setMemoryScope(FAR)));
        MemoryLookup second = lookup(arrive(request("r2", "And who is on call for it?")));
        SessionAssembly.Arrival third = arrive(request("r3", "Thanks; now a note for myself.")
                .setMemoryScope("session/s1"));

        assertThat(first.getScope()).isEqualTo(FAR);
        assertThat(second.getScope()).as("the scope of the turn before, which it will be assembled in").isEqualTo(FAR);
        assertThat(List.of(first.getSequence(), second.getSequence())).containsExactly(0L, 1L);
        assertThat(first.getQueryInt8().remaining()).isEqualTo(Float.BYTES + 384);
        assertThat(first.getQuery().remaining()).as("the floats are not sent beside it").isZero();
        assertThat(third.now()).as("its scope is held here, but turns before it wait").isFalse();
        assertThat(third.lookup()).isEmpty();

        sessions.recalled(memory, recall(1, "THOUGHT_SEED: Dana is on call for invoices this week."), drain);
        assertThat(packets).as("the first turn still waits").isEmpty();

        sessions.recalled(memory, recall(0, "VERIFY: the invoices service belongs to the billing team."), drain);

        assertThat(packets).extracting(CognitionPacket::getRequestId).containsExactly("r1", "r2", "r3");
        assertThat(packets).extracting(packet -> packet.getMeta().getMemoryScope())
                .containsExactly(FAR, FAR, "session/s1");
        assertThat(packets.get(0).getHeader().getContext()).contains("belongs to the billing team");
        assertThat(packets.get(1).getHeader().getContext()).contains("Dana is on call");
        assertThat(packets.get(2).getPayload().getHistory()).extracting(ChatMessage::getContent)
                .as("the turns before it are in its history").contains("Who owns the invoices service?",
                        "And who is on call for it?");
        SessionState state = memory.state("s1");
        assertThat(state.getWaitingFrom()).isEqualTo(3);
        assertThat(state.getWaitingUntil()).isEqualTo(3);
        assertThat(state.getWaitingScope()).isNull();
        assertThat(memory.waiting).isEmpty();

        assertThat(arrive(request("r4", "Back to my own notes.")).now())
                .as("nothing waits, and the session's scope is held here").isTrue();
    }

    @Test
    void aWaitingTurnThatCannotBeAssembledIsRefusedAndTheNextGoesOn() {
        lookup(arrive(request("r1", "Who owns invoices?").setMemoryScope(FAR).setPersona("nobody")));
        MemoryLookup second = lookup(arrive(request("r2", "Who owns payments?")));

        sessions.recalled(memory, recall(second.getSequence()), drain);
        sessions.recalled(memory, recall(0), drain);
        sessions.recalled(memory, recall(0, "a memory that comes twice"), drain);

        assertThat(refused).singleElement().asString().startsWith("r1: unknown persona 'nobody'");
        assertThat(packets).extracting(CognitionPacket::getRequestId).containsExactly("r2");
    }

    private SessionAssembly.Arrival arrive(CognitionRequest.Builder request) {
        return sessions.arrive(memory, request.build(), new SessionAssembly.Origin("cognition.requests", 0,
                memory.offset++));
    }

    private static MemoryLookup lookup(SessionAssembly.Arrival arrival) {
        assertThat(arrival.now()).isFalse();
        return arrival.lookup().orElseThrow();
    }

    private static CognitionRequest.Builder request(String id, String prompt) {
        return Records.request("s1", prompt).setRequestId(id);
    }

    private static MemoryRecall recall(long sequence, String... texts) {
        return MemoryRecall.newBuilder().setSessionId("s1").setSequence(sequence).setRecalled(List.of(texts)).build();
    }

    /** The task's stores in maps; the task holds every scope but {@link #FAR}. */
    private static final class InMemory implements SessionAssembly.Memory {
        final Map<String, SessionState> states = new HashMap<>();
        final NavigableMap<String, ChatMessage> history = new TreeMap<>();
        final Map<String, WaitingTurn> waiting = new HashMap<>();
        long offset;

        @Override
        public SessionState state(String session) {
            return states.getOrDefault(session, SessionState.newBuilder().build());
        }

        @Override
        public void state(String session, SessionState state) {
            states.put(session, state);
        }

        @Override
        public void append(String session, long sequence, ChatMessage message, String encoding, String packetId) {
            history.put(Topics.sequenceKey(session, sequence), message);
        }

        @Override
        public SessionAssembly.History newestFirst(String session, long until, TokenCounter counter) {
            Iterator<ChatMessage> newest = history.subMap(Topics.sequenceKey(session, 0), true,
                    Topics.sequenceKey(session, until), false).descendingMap().values().iterator();
            return new SessionAssembly.History() {
                @Override
                public boolean hasNext() {
                    return newest.hasNext();
                }

                @Override
                public ChatMessage next() {
                    return newest.next();
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Optional<Skill> skill(String name) {
            return Optional.empty();
        }

        @Override
        public Collection<Skill> skills() {
            return List.of();
        }

        @Override
        public Optional<String> identity() {
            return Optional.empty();
        }

        @Override
        public Optional<Persona> persona(String name) {
            return Optional.empty();
        }

        @Override
        public Collection<String> personaNames() {
            return List.of();
        }

        @Override
        public RenderedTools tools() {
            return RenderedTools.EMPTY;
        }

        @Override
        public boolean holdsScope(String scope) {
            return !scope.equals(FAR);
        }

        @Override
        public AssemblyInput.MemorySearch memories(String scope, Optional<Instant> asOf) {
            return AssemblyInput.MemorySearch.NONE;
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
            waiting.remove(Topics.sequenceKey(session, sequence));
        }
    }
}
