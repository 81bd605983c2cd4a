package io.cognitionstreams.assembly;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.MemoryLookup;
import io.cognitionstreams.schema.MemoryRecall;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.WaitingTurn;
import io.cognitionstreams.security.TenantBinding;
import io.cognitionstreams.telemetry.IntervalLog;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.EventSources;

/**
 * The processors {@link AssemblyTopology} wires: each hands a record and the task's stores ({@link SessionStore})
 * to {@link SessionAssembly} or {@link EpisodicMemory} and forwards what it returns. Nothing here decides anything.
 */
final class AssemblyProcessors {

    private AssemblyProcessors() {
    }

    /**
     * What the processors of every task share: the memory's model, the instance's shelves, the retention, how many
     * partitions cognition.memory has, which says what scopes a task holds, and the global records decoded.
     */
    record MemoryParts(EmbeddingModel model, MemoryShelves shelves, MemoryRetention retention,
                       GlobalRecords globals) {

        /** The partitions of cognition.memory, from the app's configuration (the runtime reads the topic). */
        static int partitions(ProcessorContext<?, ?> context) {
            Object configured = context.appConfigs().get(AssemblyTopology.MEMORY_PARTITIONS_CONFIG);
            if (configured == null) {
                throw new IllegalStateException(AssemblyTopology.MEMORY_PARTITIONS_CONFIG + " is not configured: "
                        + "the assembly must know how many partitions " + Topics.COGNITION_MEMORY + " has");
            }
            return Integer.parseInt(configured.toString());
        }

        EpisodicMemory episodic(ProcessorContext<?, ?> context) {
            return new EpisodicMemory(model, shelves, context.taskId().toString(), new MemoryStore(
                    context.getStateStore(AssemblyTopology.MEMORY_STORE)));
        }

        /** Whether the task of {@code context} holds {@code scope}'s memories. */
        boolean holds(ProcessorContext<?, ?> context, int partitions, String scope) {
            return MemoryWrite.partitionOf(scope, partitions) == context.taskId().partition();
        }

        /** A task initialized or closed: what its shelves held may be gone from its store (a rollback, a move). */
        void reset(ProcessorContext<?, ?> context) {
            shelves.drop(context.taskId().toString());
        }
    }

    private static SessionStore memory(ProcessorContext<?, ?> context, MemoryParts parts) {
        int partitions = MemoryParts.partitions(context);
        return new SessionStore(context.getStateStore(AssemblyTopology.SESSION_STORE),
                context.getStateStore(AssemblyTopology.HISTORY_STORE),
                context.getStateStore(AssemblyTopology.WAITING_STORE), parts.episodic(context),
                scope -> parts.holds(context, partitions, scope), parts.globals());
    }

    /** Forwards a turn's packet and events, or its refusal: for a request assembled now or after waiting. */
    private static final class Turns {
        private final ProcessorContext<String, SpecificRecord> context;
        private final Topic<String, CognitionRequest> requests;
        private final Topic<String, CognitionPacket> packets;

        Turns(ProcessorContext<String, SpecificRecord> context, Topics topics) {
            this.context = context;
            this.requests = topics.requests;
            this.packets = topics.packets;
        }

        void forward(SessionAssembly.Turn turn, String key, long timestamp) {
            requireFits(turn.packet());
            context.forward(new Record<>(key, turn.packet(), timestamp));
            turn.events().forEach(event -> context.forward(new Record<>(key, event, timestamp)));
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

        /**
         * The event (for a budget failure) and the dead letter of a request that gets no packet, keyed like every
         * letter by where the request was.
         */
        void refuse(CognitionRequest request, SessionAssembly.Origin at, String key, long timestamp,
                    RuntimeException error) {
            if (error instanceof TokenBudgetException budget) {
                context.forward(new Record<>(key, SessionAssembly.budgetError(request, budget, at.source()),
                        timestamp));
            }
            ErrorKind kind = error instanceof InvalidRecordException || error instanceof TokenBudgetException
                    ? ErrorKind.VALIDATION : ErrorKind.PROCESSING;
            byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
            byte[] value = requests.valueSerde().serializer().serialize(at.topic(), request);
            context.forward(new Record<>(DeadLetters.key(at.topic(), at.partition(), at.offset()),
                    DeadLetters.of(kind, error, new DeadLetters.Origin(at.topic(), at.partition(), at.offset(),
                            "assemble", context.applicationId()), keyBytes, value, Instant.now()), timestamp));
        }
    }

    /**
     * Assembles one request, or holds it in order behind its session's waiting turns, asking the task that holds its
     * memory scope for its memories; a budget failure becomes an event and a dead letter, never a cut packet.
     */
    static final class Assemble implements Processor<String, CognitionRequest, String, SpecificRecord> {
        private final SessionAssembly sessions;
        private final Topics topics;
        private final MemoryParts parts;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionStore memory;
        private Turns turns;

        Assemble(SessionAssembly sessions, Topics topics, MemoryParts parts) {
            this.sessions = sessions;
            this.topics = topics;
            this.parts = parts;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            parts.reset(context);
            memory = memory(context, parts);
            turns = new Turns(context, topics);
        }

        @Override
        public void process(Record<String, CognitionRequest> record) {
            RecordMetadata at = context.recordMetadata().orElseThrow();
            // Which topic a request was read from is the one thing about its writer the broker vouches for.
            TenantBinding.requireBound(at.topic(), record.value());
            SessionAssembly.Origin origin = new SessionAssembly.Origin(at.topic(), at.partition(), at.offset());
            SessionAssembly.Arrival arrival = sessions.arrive(memory, record.value(), origin);
            if (!arrival.now()) {
                arrival.lookup().ifPresent(lookup -> context.forward(record.withKey(lookup.getScope())
                        .withValue(lookup)));
                return;
            }
            SessionAssembly.Turn turn;
            try {
                turn = sessions.assemble(memory, record.value(), origin.source());
            } catch (TokenBudgetException e) {
                turns.refuse(record.value(), origin, record.key(), record.timestamp(), e);
                return;
            }
            turns.forward(turn, record.key(), record.timestamp());
        }

        @Override
        public void close() {
            parts.reset(context);
        }
    }

    /**
     * Searches a scope this task holds for a turn another task waits with, and sends what it found back to the
     * turn's session. Always answers, with nothing found if need be, so no session waits for good.
     */
    static final class Lookup implements Processor<String, MemoryLookup, String, MemoryRecall> {
        private static final Logger LOG = LoggerFactory.getLogger(Lookup.class);

        private final MemoryParts parts;
        private final IntervalLog failed = new IntervalLog(LOG, "a memory lookup failed; the turn gets no memories",
                Duration.ofMinutes(1));
        private ProcessorContext<String, MemoryRecall> context;
        private EpisodicMemory episodic;

        Lookup(MemoryParts parts) {
            this.parts = parts;
        }

        @Override
        public void init(ProcessorContext<String, MemoryRecall> context) {
            this.context = context;
            episodic = parts.episodic(context);
        }

        @Override
        public void process(Record<String, MemoryLookup> record) {
            MemoryLookup lookup = record.value();
            List<String> found = List.of();
            try {
                if (!episodic.model().name().equals(lookup.getEmbeddingModel())) {
                    throw new IllegalStateException("the lookup's prompt is embedded with "
                            + lookup.getEmbeddingModel() + ", this instance's memory with " + episodic.model().name()
                            + ": run every instance with the same --memory-embedder");
                }
                long until = lookup.getWrittenUntil() == null ? Long.MAX_VALUE
                        : lookup.getWrittenUntil().toEpochMilli();
                if (episodic.holdsAny(lookup.getScope(), until)) {
                    found = episodic.search(lookup.getScope(), EpisodicMemory.queryOf(lookup), lookup.getK(), until)
                            .stream().map(MemoryIndex.Hit::text).toList();
                }
            } catch (RuntimeException e) {
                failed.warn(lookup.getSessionId() + " #" + lookup.getSequence() + " in " + lookup.getScope() + ": "
                        + e.getMessage());
            }
            context.forward(record.withKey(lookup.getSessionId()).withValue(MemoryRecall.newBuilder()
                    .setSessionId(lookup.getSessionId()).setSequence(lookup.getSequence()).setRecalled(found)
                    .build()));
        }
    }

    /** A waiting turn's memories are back: assembles the session's turns that can be, in order. */
    static final class Recall implements Processor<String, MemoryRecall, String, SpecificRecord> {
        private final SessionAssembly sessions;
        private final Topics topics;
        private final MemoryParts parts;
        private SessionStore memory;
        private Turns turns;

        Recall(SessionAssembly sessions, Topics topics, MemoryParts parts) {
            this.sessions = sessions;
            this.topics = topics;
            this.parts = parts;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            memory = memory(context, parts);
            turns = new Turns(context, topics);
        }

        @Override
        public void process(Record<String, MemoryRecall> record) {
            sessions.recalled(memory, record.value(), new SessionAssembly.Drain() {
                @Override
                public void assembled(SessionAssembly.Turn turn, WaitingTurn waited) {
                    turns.forward(turn, waited.getRequest().getSessionId(), record.timestamp());
                }

                @Override
                public void refused(WaitingTurn waited, RuntimeException why) {
                    turns.refuse(waited.getRequest(), SessionAssembly.origin(waited),
                            waited.getRequest().getSessionId(), record.timestamp(), why);
                }
            });
        }
    }

    /**
     * Keeps what cognition.memory holds for the scopes of this task's partition in its store, and each scope within
     * its retention: its count as each entry is kept, and every minute a step of a sweep for entries aged past the
     * bound, which no write would find. An entry read where it does not belong (written by partitioning on its key,
     * as before memory was partitioned by owner, or by a producer of someone else's) is moved to its owner's
     * partition. Reads raw bytes and skips what governance dead-letters, as the other stores of the topic do.
     */
    static final class Keep implements Processor<String, byte[], String, MemoryWrite> {
        private static final Logger LOG = LoggerFactory.getLogger(Keep.class);

        private final Topic<String, MemoryEntry> topic;
        private final MemoryParts parts;
        private final IntervalLog skipped = new IntervalLog(LOG, "the memory store skipped a record of "
                + Topics.COGNITION_MEMORY + " (its dead letter comes from governance)", Duration.ofMinutes(1));
        private ProcessorContext<String, MemoryWrite> context;
        private Deserializer<MemoryEntry> entries;
        private EpisodicMemory episodic;
        private MemoryStore store;
        private int partitions;
        private String sweptUntil;

        Keep(Topic<String, MemoryEntry> topic, MemoryParts parts) {
            this.topic = topic;
            this.parts = parts;
        }

        @Override
        public void init(ProcessorContext<String, MemoryWrite> context) {
            this.context = context;
            entries = topic.valueSerde().deserializer();
            partitions = MemoryParts.partitions(context);
            parts.reset(context);
            episodic = parts.episodic(context);
            store = new MemoryStore(context.getStateStore(AssemblyTopology.MEMORY_STORE));
            context.schedule(MemoryRetention.SWEEP_EVERY, PunctuationType.WALL_CLOCK_TIME, this::sweep);
        }

        @Override
        public void process(Record<String, byte[]> record) {
            if (record.key() == null) {
                skipped.warn("a record without a key");
                return;
            }
            if (record.value() == null) {
                forget(record);
                return;
            }
            MemoryEntry entry;
            try {
                entry = entries.deserialize(topic.name(), record.headers(), record.value());
            } catch (RuntimeException e) {
                skipped.warn(record.key() + ": " + e.getMessage());
                return;
            }
            Optional<String> refusal = MemoryEntries.refuse(record.key(), entry);
            if (refusal.isPresent()) {
                skipped.warn(record.key() + ": " + refusal.get());
                return;
            }
            String scope = EpisodicMemory.scopeOf(entry);
            int here = context.taskId().partition();
            if (MemoryWrite.partitionOf(scope, partitions) != here) {
                context.forward(record.withValue(MemoryWrite.entry(entry)));
                context.forward(record.withValue(new MemoryWrite(scope, null, here)));
                return;
            }
            Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
            for (EpisodicMemory.Forgotten over : episodic.keep(entry, parts.retention(), now)) {
                context.forward(new Record<>(over.id(), MemoryWrite.forget(over.scope()), record.timestamp()));
            }
        }

        /** A tombstone names its scope; one that does not (someone else's) is looked for in every scope here. */
        private void forget(Record<String, byte[]> record) {
            Optional<String> scope = MemoryWrite.scopeOf(record.headers());
            if (scope.isEmpty()) {
                scope = store.scopeOf(record.key());
            }
            scope.ifPresent(held -> episodic.forget(held, record.key()));
        }

        private void sweep(long now) {
            int idle = parts.shelves().dropIdle();
            if (idle > 0) {
                LOG.info("let go of {} idle memory scopes' shelves: {}", idle, parts.shelves().describe());
            }
            if (!parts.retention().bounded()) {
                return;
            }
            EpisodicMemory.Sweep sweep = episodic.sweep(parts.retention(), Instant.ofEpochMilli(now), sweptUntil,
                    MemoryRetention.SWEEP_ENTRIES);
            sweptUntil = sweep.next();
            sweep.forgotten().forEach(over -> context.forward(new Record<>(over.id(),
                    MemoryWrite.forget(over.scope()), now)));
            if (!sweep.forgotten().isEmpty()) {
                LOG.info("forgot {} episodic memories past retention ({} entries, {} a scope)",
                        sweep.forgotten().size(), parts.retention().maxEntries(), parts.retention().maxAge());
            }
        }

        @Override
        public void close() {
            parts.reset(context);
        }
    }

    /** Remembers a tool result and forwards what it leads to: the next turn, or an escalation and its event. */
    static final class RememberResult implements Processor<String, ToolResult, String, SpecificRecord> {
        private final SessionAssembly sessions;
        private final MemoryParts parts;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionStore memory;

        RememberResult(SessionAssembly sessions, MemoryParts parts) {
            this.sessions = sessions;
            this.parts = parts;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = memory(context, parts);
        }

        @Override
        public void process(Record<String, ToolResult> record) {
            forward(context, record, sessions.remember(memory, record.value(), Instant.now(),
                    EventSources.of(context)));
        }
    }

    /** Forwards what a result led to, keyed by its session (an escalation by its council). */
    private static void forward(ProcessorContext<String, SpecificRecord> context, Record<String, ?> record,
                                SessionAssembly.AfterResult after) {
        after.next().ifPresent(request -> context.forward(record.withValue(request)));
        after.escalation().ifPresent(message -> context.forward(record.withKey(message.getCouncilId())
                .withValue(message)));
        after.event().ifPresent(event -> context.forward(record.withValue(event)));
        after.usage().ifPresent(usage -> context.forward(record.withValue(usage)));
    }

    /**
     * Remembers an answer and forwards its session's usage, the answer's own added, then what the results that
     * waited for the answer lead to.
     */
    static final class RememberOutput implements Processor<String, LlmOutput, String, SpecificRecord> {
        private final SessionAssembly sessions;
        private final MemoryParts parts;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionStore memory;

        RememberOutput(SessionAssembly sessions, MemoryParts parts) {
            this.sessions = sessions;
            this.parts = parts;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = memory(context, parts);
        }

        @Override
        public void process(Record<String, LlmOutput> record) {
            SessionAssembly.AfterAnswer after = sessions.remember(memory, record.value(), Instant.now(),
                    EventSources.of(context));
            Record<String, LlmOutput> bySession = record.withKey(record.value().getSessionId());
            context.forward(bySession.withValue(after.usage()));
            after.released().forEach(released -> forward(context, bySession, released));
        }
    }

    /** Hands each record of a session to what remembers it for the session's next turns. */
    static final class Remember<V> implements Processor<String, V, Void, Void> {
        private final BiConsumer<SessionAssembly.Memory, V> remember;
        private final MemoryParts parts;
        private SessionStore memory;

        Remember(BiConsumer<SessionAssembly.Memory, V> remember, MemoryParts parts) {
            this.remember = remember;
            this.parts = parts;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            memory = memory(context, parts);
        }

        @Override
        public void process(Record<String, V> record) {
            remember.accept(memory, record.value());
        }
    }
}
