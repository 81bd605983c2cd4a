package io.cognitionstreams.assembly;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.BiConsumer;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.embeddings.SentenceEmbedder;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.governance.PersonaRules;
import io.cognitionstreams.governance.ToolDescriptors;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.HistoryEntry;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.EventSources;
import io.cognitionstreams.topology.GlobalMirror;
import io.cognitionstreams.topology.Outputs;

/**
 * Budget compression: cognition.requests -> packets within budget -> cognition.packets, with what it needs kept in
 * state: each session's history (fed back from llm.outputs), a pending re-anchoring protocol (from denied calls on
 * tool.decisions), and the skills, governed identity and personas as global stores, so an edited skill or persona
 * shows up in the next packet without a restart.
 */
public final class AssemblyTopology {

    public static final String NAME = "assembly";
    public static final String SESSION_STORE = "session-state";
    public static final String HISTORY_STORE = "session-history";
    public static final String SKILLS_STORE = "skills";
    public static final String IDENTITY_STORE = "identity";
    public static final String PERSONAS_STORE = "personas";
    public static final String MEMORY_STORE = "episodic-memory";
    public static final String TOOLS_STORE = "tools";

    private AssemblyTopology() {
    }

    /** @param autoContinueSteps turns a session may take on its own in a row after tool results; 0 for none */
    public static void build(StreamsBuilder builder, Topics topics, PacketAssembler assembler,
                             SentenceEmbedder embedder, int autoContinueSteps) {
        // Skills, identity, personas and tools are small and read by every session: a global copy on each instance.
        SkillsStore.addGlobal(builder, topics, SKILLS_STORE);
        GlobalMirror.add(builder, topics.identity, IDENTITY_STORE, IdentityGovernance.CHECK);
        GlobalMirror.add(builder, topics.personas, PERSONAS_STORE, PersonaRules.CHECK);
        GlobalMirror.add(builder, topics.tools, TOOLS_STORE, ToolDescriptors::refuse);
        // Memories are searched across sessions, so every instance holds all of them; searched through an index
        // of decoded vectors the store's loader keeps, because decoding each entry per request was the bottleneck.
        MemoryIndex memoryIndex = new MemoryIndex();
        GlobalMirror.add(builder, topics.memory, MEMORY_STORE, MemoryEntries::refuse,
                EpisodicMemory.indexer(memoryIndex));
        // Changelogged, so a restart or a rebalance restores every session's history and pending re-anchor.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SESSION_STORE),
                Serdes.String(), topics.serde(SessionState.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(HISTORY_STORE),
                Serdes.String(), topics.serde(HistoryEntry.class)));
        SessionAssembly sessions = new SessionAssembly(assembler, new EpisodicMemory(embedder, memoryIndex),
                autoContinueSteps);

        // All six inputs are keyed by session and share the stores, so they form one sub-topology whose task
        // for partition p owns the sessions of partition p on every topic: no repartition is needed.
        Outputs.of(builder.stream(topics.requests.name(), topics.requests.consumed())
                        .process(() -> new Assemble(sessions, topics), Named.as("assemble"), SESSION_STORE,
                                HISTORY_STORE), "assembled")
                .to(topics.packets)
                .to(topics.events)
                .to(topics.deadLetters)
                .end();
        builder.stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .process(() -> new Remember<LlmOutput>(sessions::remember), Named.as("remember-output"),
                        SESSION_STORE, HISTORY_STORE);
        builder.stream(topics.toolDecisions.name(), topics.toolDecisions.consumed())
                .process(() -> new Remember<ToolDecision>(sessions::reanchor), Named.as("reanchor-on-denial"),
                        SESSION_STORE, HISTORY_STORE);
        // An imported conversation takes the same exactly-once path into the history store as the model's answers.
        builder.stream(topics.sessionImports.name(), topics.sessionImports.consumed())
                .process(() -> new Remember<HistoryImport>(sessions::importMessage), Named.as("import-history"),
                        SESSION_STORE, HISTORY_STORE);
        // A result joins the history; the last result of a turn may ask for the session's next turn itself.
        Outputs.of(builder.stream(topics.toolResults.name(), topics.toolResults.consumed())
                        .process(() -> new RememberResult(sessions), Named.as("remember-result"), SESSION_STORE,
                                HISTORY_STORE), "after-result")
                .to(topics.requests)
                .to(topics.councilMessages)
                .to(topics.events)
                .end();
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

    private static SessionStore memory(ProcessorContext<?, ?> context) {
        return new SessionStore(context.getStateStore(SESSION_STORE), context.getStateStore(HISTORY_STORE),
                context.getStateStore(SKILLS_STORE), context.getStateStore(IDENTITY_STORE),
                context.getStateStore(PERSONAS_STORE), context.getStateStore(TOOLS_STORE));
    }

    /** Assembles one request; a budget failure becomes an event and a dead letter, never a cut packet. */
    private static final class Assemble implements Processor<String, CognitionRequest, String, SpecificRecord> {
        private final SessionAssembly sessions;
        private final Topic<String, CognitionRequest> requests;
        private final Topic<String, CognitionPacket> packets;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionStore memory;

        Assemble(SessionAssembly sessions, Topics topics) {
            this.sessions = sessions;
            this.requests = topics.requests;
            this.packets = topics.packets;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = memory(context);
        }

        @Override
        public void process(Record<String, CognitionRequest> record) {
            SessionAssembly.Turn turn;
            try {
                turn = sessions.assemble(memory, record.value(), EventSources.of(context));
            } catch (TokenBudgetException e) {
                refuse(record, e);
                return;
            }
            requireFits(turn.packet());
            context.forward(record.withValue(turn.packet()));
            turn.events().forEach(event -> context.forward(record.withValue(event)));
            turn.remember().run();
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

        /** The event says why; the letter, keyed like every letter by where the request was, holds it. */
        private void refuse(Record<String, CognitionRequest> record, TokenBudgetException error) {
            CognitionRequest request = record.value();
            context.forward(record.withValue(SessionAssembly.budgetError(request, error,
                    EventSources.of(context))));
            RecordMetadata at = context.recordMetadata().orElseThrow();
            byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
            byte[] value = requests.valueSerde().serializer().serialize(at.topic(), request);
            context.forward(record.withKey(DeadLetters.key(at.topic(), at.partition(), at.offset()))
                    .withValue(DeadLetters.of(ErrorKind.VALIDATION, error, new DeadLetters.Origin(at.topic(),
                            at.partition(), at.offset(), "assemble", context.applicationId()), key, value,
                            Instant.now())));
        }
    }

    /** Remembers a tool result and forwards what it leads to: the next turn, or an escalation and its event. */
    private static final class RememberResult implements Processor<String, ToolResult, String, SpecificRecord> {
        private final SessionAssembly sessions;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionStore memory;

        RememberResult(SessionAssembly sessions) {
            this.sessions = sessions;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = memory(context);
        }

        @Override
        public void process(Record<String, ToolResult> record) {
            SessionAssembly.AfterResult after = sessions.remember(memory, record.value(), Instant.now(),
                    EventSources.of(context));
            after.next().ifPresent(request -> context.forward(record.withValue(request)));
            after.escalation().ifPresent(message -> context.forward(record.withKey(message.getCouncilId())
                    .withValue(message)));
            after.event().ifPresent(event -> context.forward(record.withValue(event)));
        }
    }

    /** Hands each record of a session to what remembers it for the session's next turns. */
    private static final class Remember<V> implements Processor<String, V, Void, Void> {
        private final BiConsumer<SessionAssembly.Memory, V> remember;
        private SessionStore memory;

        Remember(BiConsumer<SessionAssembly.Memory, V> remember) {
            this.remember = remember;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            memory = memory(context);
        }

        @Override
        public void process(Record<String, V> record) {
            remember.accept(memory, record.value());
        }
    }
}
