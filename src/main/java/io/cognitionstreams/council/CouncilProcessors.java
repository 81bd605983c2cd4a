package io.cognitionstreams.council;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.telemetry.Meters;

/** The processor {@link CouncilTopology} wires: it hands records and the wall clock to {@link Council}. */
final class CouncilProcessors {

    private CouncilProcessors() {
    }

    /**
     * Hands each message to the council, and checks the wall clock for deadlines in between. A council's state is
     * published once a tick when it changed, not per message: a heartbeat flood then costs one record a tick.
     */
    static final class Deliberate implements Processor<String, CouncilMessage, String, SpecificRecord> {
        private static final java.time.Duration DECIDED_PRUNE_EVERY = java.time.Duration.ofMinutes(10);
        private final CouncilSettings settings;
        private final Council council;
        private ProcessorContext<String, SpecificRecord> context;
        private CouncilStore memory;
        private KeyValueStore<String, Long> clocks;
        /** Councils whose state changed since it was last published. */
        private final Set<String> changed = new TreeSet<>();
        /** When old decisions were last forgotten: a scan of every decision, so not every tick. */
        private long decidedPrunedAt;

        Deliberate(CouncilSettings settings, Council council) {
            this.settings = settings;
            this.council = council;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            clocks = context.getStateStore(CouncilTopology.CLOCK_STORE);
            memory = new CouncilStore(new CouncilStore.Stores(clocks,
                    context.getStateStore(CouncilTopology.ROLES_STORE),
                    context.getStateStore(CouncilTopology.PROPOSALS_STORE),
                    context.getStateStore(CouncilTopology.PENDING_VOTES_STORE),
                    context.getStateStore(CouncilTopology.DECIDED_STORE),
                    context.getStateStore(CouncilTopology.SEEN_STORE),
                    context.getStateStore(CouncilTopology.KEYS_STORE),
                    context.getStateStore(CouncilTopology.DEADLINES_STORE),
                    context.getStateStore(CouncilTopology.COUNTS_STORE)), settings);
            // After a restart a change may have committed without its state: publish every council's once.
            try (KeyValueIterator<String, Long> councils = clocks.all()) {
                councils.forEachRemaining(entry -> changed.add(entry.key));
            }
            if (!settings.tick().isZero()) {
                context.schedule(settings.tick(), PunctuationType.WALL_CLOCK_TIME, this::checkWallClock);
            }
        }

        @Override
        public void process(Record<String, CouncilMessage> record) {
            Council.Result result = council.handle(memory, record.key(), record.value(),
                    Instant.ofEpochMilli(context.currentSystemTimeMs()));
            result.outputs().forEach(this::forward);
            // A refused message touched nothing (and may name no council, or one it is not keyed by).
            if (result.refusal().isEmpty()) {
                Meters.councilMessage(record.value());
                changed.add(record.key());
            }
            if (settings.tick().isZero()) {
                publishChanged(context.currentSystemTimeMs());
            }
            // Dead-lettered by DeadLetterHandler, in the same transaction as the outputs above.
            result.refusal().ifPresent(reason -> {
                throw new InvalidRecordException(reason);
            });
        }

        /** Writes a tick for each council on this task with a deadline past on the wall clock but not on its own. */
        private void checkWallClock(long wallClock) {
            List<Council.Output> ticks = new ArrayList<>();
            try (KeyValueIterator<String, Long> councils = clocks.all()) {
                councils.forEachRemaining(entry -> council.tick(memory, entry.key, Instant.ofEpochMilli(wallClock))
                        .ifPresent(ticks::add));
            }
            ticks.forEach(this::forward);
            memory.forgetSeenBefore(wallClock - settings.maxMessageAge().toMillis());
            if (wallClock - decidedPrunedAt >= DECIDED_PRUNE_EVERY.toMillis()) {
                memory.forgetDecidedBefore(wallClock - CouncilSettings.DECIDED_RETENTION.toMillis());
                decidedPrunedAt = wallClock;
            }
            publishChanged(wallClock);
        }

        private void publishChanged(long wallClock) {
            Instant now = Instant.ofEpochMilli(wallClock);
            changed.forEach(id -> context.forward(new Record<>(id, council.snapshot(memory, id, now),
                    wallClock)));
            changed.clear();
        }

        private void forward(Council.Output output) {
            context.forward(new Record<>(output.key(), output.value(), output.timestamp().toEpochMilli()));
        }
    }
}
