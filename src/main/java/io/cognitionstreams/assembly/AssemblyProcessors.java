package io.cognitionstreams.assembly;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.function.BiConsumer;

import org.apache.avro.specific.SpecificRecord;
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
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionUsage;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.security.TenantBinding;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.EventSources;

/**
 * The processors {@link AssemblyTopology} wires: each hands a record and the task's stores ({@link SessionStore})
 * to {@link SessionAssembly} and forwards what it returns. Nothing here decides anything.
 */
final class AssemblyProcessors {

    private AssemblyProcessors() {
    }

    private static SessionStore memory(ProcessorContext<?, ?> context) {
        return new SessionStore(context.getStateStore(AssemblyTopology.SESSION_STORE),
                context.getStateStore(AssemblyTopology.HISTORY_STORE),
                context.getStateStore(AssemblyTopology.SKILLS_STORE), context.getStateStore(AssemblyTopology.IDENTITY_STORE),
                context.getStateStore(AssemblyTopology.PERSONAS_STORE), context.getStateStore(AssemblyTopology.TOOLS_STORE));
    }

    /** Assembles one request; a budget failure becomes an event and a dead letter, never a cut packet. */
    static final class Assemble implements Processor<String, CognitionRequest, String, SpecificRecord> {
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
            // Which topic a request was read from is the one thing about its writer the broker vouches for.
            TenantBinding.requireBound(context.recordMetadata().orElseThrow().topic(), record.value());
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
    static final class RememberResult implements Processor<String, ToolResult, String, SpecificRecord> {
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
            after.usage().ifPresent(usage -> context.forward(record.withValue(usage)));
        }
    }

    /** Remembers an answer and forwards its session's usage, the answer's own added. */
    static final class RememberOutput implements Processor<String, LlmOutput, String, SessionUsage> {
        private final SessionAssembly sessions;
        private ProcessorContext<String, SessionUsage> context;
        private SessionStore memory;

        RememberOutput(SessionAssembly sessions) {
            this.sessions = sessions;
        }

        @Override
        public void init(ProcessorContext<String, SessionUsage> context) {
            this.context = context;
            memory = memory(context);
        }

        @Override
        public void process(Record<String, LlmOutput> record) {
            SessionUsage usage = sessions.remember(memory, record.value());
            context.forward(record.withKey(record.value().getSessionId()).withValue(usage));
        }
    }

    /**
     * Embeds a block on channel.memory into its scope's entry on cognition.memory, keyed by block id, stamped with
     * the block's record: its position, and its timestamp as when the memory was written. Keeps each scope within
     * its retention with tombstones: as an entry is written, for its scope; and, in the task of channel.memory's
     * partition 0, every minute for every scope, since entries age past the bound without any write to notice.
     * One task sweeps because every instance holds every scope: more would write the same tombstones again.
     */
    static final class Embed implements Processor<String, RoutedBlock, String, MemoryEntry> {
        private static final Logger LOG = LoggerFactory.getLogger(Embed.class);

        private final EmbeddingModel model;
        private final MemoryIndex index;
        private final MemoryRetention retention;
        private ProcessorContext<String, MemoryEntry> context;

        Embed(EmbeddingModel model, MemoryIndex index, MemoryRetention retention) {
            this.model = model;
            this.index = index;
            this.retention = retention;
        }

        @Override
        public void init(ProcessorContext<String, MemoryEntry> context) {
            this.context = context;
            if (retention.bounded() && context.taskId().partition() == 0) {
                context.schedule(MemoryRetention.SWEEP_EVERY, PunctuationType.WALL_CLOCK_TIME, this::sweep);
            }
        }

        @Override
        public void process(Record<String, RoutedBlock> record) {
            RecordMetadata at = context.recordMetadata().orElseThrow();
            MemoryEntry entry = EpisodicMemory.remember(record.value(), new EpisodicMemory.Source(at.topic(),
                    at.partition(), at.offset(), Instant.ofEpochMilli(record.timestamp())), model);
            context.forward(record.withKey(entry.getBlockId()).withValue(entry));
            for (String forgotten : retention.onWrite(index, entry.getScope(), entry.getBlockId(),
                    Instant.ofEpochMilli(context.currentSystemTimeMs()))) {
                context.forward(record.withKey(forgotten).withValue(null));
            }
        }

        private void sweep(long now) {
            List<String> forgotten = retention.sweep(index, Instant.ofEpochMilli(now));
            forgotten.forEach(id -> context.forward(new Record<>(id, null, now)));
            if (!forgotten.isEmpty()) {
                LOG.info("forgot {} episodic memories past retention ({} entries, {} a scope)", forgotten.size(),
                        retention.maxEntries(), retention.maxAge());
            }
        }
    }

    /** Hands each record of a session to what remembers it for the session's next turns. */
    static final class Remember<V> implements Processor<String, V, Void, Void> {
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
