package io.cognitionstreams.assembly;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.embeddings.SentenceEmbedder;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.HistoryEntry;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.topology.GlobalMirror;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Budget compression: cognition.requests -> packets within budget -> cognition.packets, with what it needs kept in
 * state: each session's history (fed back from llm.outputs), a pending re-anchoring protocol (from denied calls on
 * tool.decisions), and the skills and governed identity as global stores, so an edited skill shows up in the next
 * packet without a restart.
 */
public final class AssemblyTopology {

    public static final String NAME = "assembly";
    public static final String SESSION_STORE = "session-state";
    public static final String HISTORY_STORE = "session-history";
    public static final String SKILLS_STORE = "skills";
    public static final String IDENTITY_STORE = "identity";
    public static final String MEMORY_STORE = "episodic-memory";

    private AssemblyTopology() {
    }

    public static void build(StreamsBuilder builder, Topics topics, PacketAssembler assembler,
                             SentenceEmbedder embedder) {
        // Skills and identity are small and read by every session: a global copy on each instance, not a join.
        SkillsStore.addGlobal(builder, topics, SKILLS_STORE);
        GlobalMirror.add(builder, topics.identity, IDENTITY_STORE, IdentityGovernance.CHECK);
        // Memories are searched across sessions, so every instance holds all of them; searched through an index
        // of decoded vectors the store's loader keeps, because decoding each entry per request was the bottleneck.
        MemoryIndex memoryIndex = new MemoryIndex();
        GlobalMirror.add(builder, topics.memory, MEMORY_STORE, MemoryEntries::refuse, new GlobalMirror.Listener<>() {
                    @Override
                    public void put(String key, MemoryEntry entry) {
                        EpisodicMemory.index(memoryIndex, key, entry);
                    }

                    @Override
                    public void delete(String key) {
                        memoryIndex.remove(key);
                    }
                });
        // Changelogged, so a restart or a rebalance restores every session's history and pending re-anchor.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SESSION_STORE),
                Serdes.String(), topics.serde(SessionState.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(HISTORY_STORE),
                Serdes.String(), topics.serde(HistoryEntry.class)));

        // All three inputs are keyed by session and share the stores, so they form one sub-topology whose task
        // for partition p owns the sessions of partition p on every topic: no repartition is needed.
        BranchedKStream<String, SpecificRecord> out = builder
                .stream(topics.requests.name(), topics.requests.consumed())
                .process(() -> new Assemble(assembler, new EpisodicMemory(embedder, memoryIndex), topics),
                        Named.as("assemble"),
                        SESSION_STORE, HISTORY_STORE)
                .split(Named.as("assembled-"));
        out.branch((session, record) -> record instanceof CognitionPacket, Branched.withConsumer(packets -> packets
                .mapValues(record -> (CognitionPacket) record, Named.as("as-packet"))
                .to(topics.packets.name(), topics.packets.produced()), "packet"));
        out.branch((session, record) -> record instanceof PipelineEvent, Branched.withConsumer(events -> events
                .mapValues(record -> (PipelineEvent) record, Named.as("as-event"))
                .to(topics.events.name(), topics.events.produced()), "event"));
        out.branch((session, record) -> record instanceof DeadLetter, Branched.withConsumer(letters -> letters
                .mapValues(record -> (DeadLetter) record, Named.as("as-dead-letter"))
                .to(topics.deadLetters.name(), topics.deadLetters.produced()), "dead-letter"));
        out.noDefaultBranch();

        builder.stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .process(() -> new RememberOutput(assembler), Named.as("remember-output"), SESSION_STORE,
                        HISTORY_STORE);
        builder.stream(topics.toolDecisions.name(), topics.toolDecisions.consumed())
                .process(ReanchorOnDenial::new, Named.as("reanchor-on-denial"), SESSION_STORE);
        // Embedded once here, on arrival, so neither a restore nor a search pays for it again.
        builder.stream(topics.channel(Channel.MEMORY).name(), topics.channel(Channel.MEMORY).consumed())
                .mapValues(block -> EpisodicMemory.remember(requireBlock(block), embedder), Named.as("embed-memory"))
                .selectKey((session, entry) -> entry.getBlockId(), Named.as("key-by-block"))
                .to(topics.memory.name(), topics.memory.produced());
    }

    private static RoutedBlock requireBlock(RoutedBlock block) {
        if (block == null || block.getText().isBlank()) {
            throw new InvalidRecordException("memory block is empty: nothing to remember");
        }
        return block;
    }

    private static <V> List<V> values(KeyValueStore<String, V> store) {
        List<V> all = new ArrayList<>();
        try (KeyValueIterator<String, V> iterator = store.all()) {
            iterator.forEachRemaining(entry -> all.add(entry.value));
        }
        return all;
    }

    static SessionState stateOf(KeyValueStore<String, SessionState> sessions, String session) {
        SessionState state = sessions.get(session);
        return state != null ? state : SessionState.newBuilder().build();
    }

    /** Assembles one request; budget failures become an event and a dead letter, never a cut packet. */
    private static final class Assemble implements Processor<String, CognitionRequest, String, SpecificRecord> {
        private final PacketAssembler assembler;
        private final EpisodicMemory memory;
        private final Topic<String, CognitionRequest> requests;
        private final Topic<String, CognitionPacket> packets;
        private ProcessorContext<String, SpecificRecord> context;
        private KeyValueStore<String, SessionState> sessions;
        private HistoryStore history;
        private KeyValueStore<String, Skill> skills;
        private KeyValueStore<String, Identity> identity;

        Assemble(PacketAssembler assembler, EpisodicMemory memory, Topics topics) {
            this.assembler = assembler;
            this.memory = memory;
            this.requests = topics.requests;
            this.packets = topics.packets;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            sessions = context.getStateStore(SESSION_STORE);
            history = new HistoryStore(context.getStateStore(HISTORY_STORE));
            skills = context.getStateStore(SKILLS_STORE);
            identity = context.getStateStore(IDENTITY_STORE);
        }

        @Override
        public void process(Record<String, CognitionRequest> record) {
            CognitionRequest request = RequestValidator.requireValid(record.value());
            String session = request.getSessionId();
            SessionState state = stateOf(sessions, session);
            Optional<Skill> skill = activeSkill(request);
            TokenCounter counter = assembler.counterFor(request.getTargetModel());
            PacketAssembler.Assembly assembly;
            long historyUntil = request.getHistoryUntil() != null
                    ? Math.min(request.getHistoryUntil(), state.getNextSequence()) : state.getNextSequence();
            try (HistoryStore.NewestFirst recent = history.newestFirst(session, historyUntil, counter)) {
                Identity governed = identity.get(IdentityGovernance.KEY);
                assembly = assembler.assemble(new AssemblyInput(request,
                        governed != null ? governed.getText() : IdentityDefaults.TEXT, skill,
                        () -> values(skills), memory, () -> recent,
                        Optional.ofNullable(state.getReanchorProtocol())));
            } catch (TokenBudgetException e) {
                refuse(record, request, e);
                return;
            }
            CognitionPacket packet = CognitionPacket.newBuilder(assembly.packet()).setHistoryUntil(historyUntil).build();
            requireFits(packet);
            context.forward(record.withValue(packet));
            assembly.events().forEach(event -> context.forward(record.withValue(event)));
            SessionState.Builder next = SessionState.newBuilder(state)
                    .setEncoding(packet.getEncoding())
                    .setReanchorSkill(null)
                    .setReanchorProtocol(null);
            if (request.getRetryCount() == 0) {
                // A retry re-runs the same turn: its prompt is already in the history.
                history.append(session, state.getNextSequence(), ChatMessage.newBuilder()
                        .setRole(ChatRole.USER)
                        .setContent(request.getUserPrompt())
                        .setTokenCount(packet.getFieldTokens().get("user_prompt"))
                        .build(), packet.getEncoding(), packet.getMeta().getPacketId());
                next.setNextSequence(state.getNextSequence() + 1).setTurns(state.getTurns() + 1);
            }
            sessions.put(session, next.build());
        }

        /**
         * A large MTU can make a packet bigger than cognition.packets takes. Refused before anything is written or
         * remembered, so the request is dead-lettered whole; serializing twice costs far less than the assembly.
         */
        private void requireFits(CognitionPacket packet) {
            try {
                packets.valueSerde().serializer().serialize(packets.name(), packet);
            } catch (OutputGuard.RefusedOutputException e) {
                throw new InvalidRecordException("the packet cannot be written: " + e.getMessage()
                        + "; lower the request's mtu, or raise the topic's max.message.bytes");
            }
        }

        private Optional<Skill> activeSkill(CognitionRequest request) {
            if (request.getActiveSkill() == null) {
                return Optional.empty();
            }
            Skill skill = skills.get(request.getActiveSkill());
            if (skill == null) {
                throw new InvalidRecordException("unknown active_skill '" + request.getActiveSkill()
                        + "': load it with `cognition skills load`");
            }
            return Optional.of(skill);
        }

        private void refuse(Record<String, CognitionRequest> record, CognitionRequest request,
                            TokenBudgetException error) {
            Optional<RecordMetadata> metadata = context.recordMetadata();
            String topic = metadata.map(RecordMetadata::topic).orElse(Topics.COGNITION_REQUESTS);
            int partition = metadata.map(RecordMetadata::partition).orElse(-1);
            long offset = metadata.map(RecordMetadata::offset).orElse(-1L);
            context.forward(record.withValue(PipelineEvent.newBuilder()
                    .setEventId(request.getRequestId() + "-budget-error")
                    .setType(Events.TOKEN_BUDGET_ERROR)
                    .setSeverity(Severity.ERROR)
                    .setSessionId(request.getSessionId())
                    .setRequestId(request.getRequestId())
                    .setMessage(error.getMessage())
                    .setAttributes(Map.of("field", error.field(), "tokens", String.valueOf(error.tokens()),
                            "budget", String.valueOf(error.budget())))
                    .setTimestamp(request.getTimestamp())
                    .build()));
            byte[] key = record.key() == null ? null : record.key().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[] value = requests.valueSerde().serializer().serialize(topic, request);
            context.forward(record.withValue(DeadLetters.of(ErrorKind.VALIDATION, error,
                    new DeadLetters.Origin(topic, partition, offset, "assemble", context.applicationId()), key,
                    value, Instant.now())));
        }
    }

    /** The model's answer joins the history, counted once in the encoding of the packet it answered. */
    private static final class RememberOutput implements Processor<String, LlmOutput, Void, Void> {
        private final PacketAssembler assembler;
        private KeyValueStore<String, SessionState> sessions;
        private HistoryStore history;

        RememberOutput(PacketAssembler assembler) {
            this.assembler = assembler;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            sessions = context.getStateStore(SESSION_STORE);
            history = new HistoryStore(context.getStateStore(HISTORY_STORE));
        }

        @Override
        public void process(Record<String, LlmOutput> record) {
            LlmOutput output = record.value();
            if (output == null || output.getSessionId().isBlank()) {
                throw new InvalidRecordException("llm output without a session cannot join a history");
            }
            SessionState state = stateOf(sessions, output.getSessionId());
            // Counted in the encoding of the session's last packet: the one the next packet most likely uses.
            TokenCounter counter = state.getEncoding() != null ? assembler.counterForEncoding(state.getEncoding())
                    : assembler.counterFor(output.getModel());
            history.append(output.getSessionId(), state.getNextSequence(), ChatMessage.newBuilder()
                    .setRole(ChatRole.ASSISTANT)
                    .setContent(output.getText())
                    .setTokenCount(counter.count(output.getText()))
                    .build(), counter.encodingName(), output.getPacketId());
            sessions.put(output.getSessionId(), SessionState.newBuilder(state)
                    .setNextSequence(state.getNextSequence() + 1).build());
        }
    }

    /** A denied call puts the skill's protocol in front of the model on the session's next packet. */
    private static final class ReanchorOnDenial implements Processor<String, ToolDecision, Void, Void> {
        private KeyValueStore<String, SessionState> sessions;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            sessions = context.getStateStore(SESSION_STORE);
        }

        @Override
        public void process(Record<String, ToolDecision> record) {
            ToolDecision decision = record.value();
            if (decision == null) {
                // Assembly is the only reader of tool.decisions, so a tombstone there is its to dead-letter.
                throw new InvalidRecordException("tool decision is null (a tombstone is not a decision)");
            }
            // Approvals, and denials of calls without a session or a protocol, have nothing to re-anchor.
            if (decision.getVerdict() != Verdict.DENIED || decision.getProtocol() == null
                    || decision.getCall().getSessionId() == null) {
                return;
            }
            String session = decision.getCall().getSessionId();
            sessions.put(session, SessionState.newBuilder(stateOf(sessions, session))
                    .setReanchorSkill(decision.getCall().getSkill())
                    .setReanchorProtocol(decision.getProtocol())
                    .build());
        }
    }
}
