package io.cognitionstreams.timetravel;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.assembly.RequestValidator;
import io.cognitionstreams.assembly.TaskInstructions.Stage;
import io.cognitionstreams.routing.RoutingTopology;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Checkpoints and seed 001's AutoFix loop. Every packet on cognition.packets becomes a checkpoint; every answer on
 * llm.outputs is checked against its stage's contract (seed 003 section 6). A broken contract travels back to the
 * failed packet's checkpoint and sends the original request again as a retry on cognition.requests, forked from
 * there (history before the failed turn, one recovery lesson, parent = the failed packet), at most max_retries
 * times; then, or when a Refine confidence is below 0.3, it escalates to the council. Checkpoints go to the
 * changelogged {@value #CHECKPOINT_STORE} store and the compacted cognition.checkpoints topic, the events to
 * cognition.events.
 *
 * <p>All three inputs are owned by other capabilities (their bad records are dead-lettered there) and keyed by
 * session, so one task holds a session's requests, checkpoints and answers without repartitioning. Records
 * already on the brokers are processed in timestamp order across them, and a packet's timestamp (its request's)
 * is older than its answer's, so the checkpoint an answer needs is written first.
 */
public final class TimeTravelTopology {

    public static final String NAME = "timetravel";
    public static final String CHECKPOINT_STORE = "checkpoints";
    public static final String REQUEST_STORE = "autofix-requests";
    /**
     * How long an original request is kept for a retry. A request is dropped when its last attempt is judged;
     * this bounds the ones never judged (dead-lettered on the way), in stream time.
     */
    public static final Duration REQUEST_RETENTION = Duration.ofDays(1);

    private static final Logger LOG = LoggerFactory.getLogger(TimeTravelTopology.class);

    private TimeTravelTopology() {
    }

    public static void build(StreamsBuilder builder, Topics topics, StageContracts contracts, AutoFixPolicy policy) {
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(CHECKPOINT_STORE),
                Serdes.String(), topics.checkpoints.valueSerde()));
        builder.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore(REQUEST_STORE,
                REQUEST_RETENTION, REQUEST_RETENTION, false), Serdes.String(), topics.requests.valueSerde()));

        builder.stream(topics.requests.name(), topics.requests.consumed())
                .process(KeepRequest::new, Named.as("keep-request"), REQUEST_STORE);
        KStream<String, SpecificRecord> checkpointed = builder
                .stream(topics.packets.name(), topics.packets.consumed())
                .process(() -> new CheckpointPacket(contracts), Named.as("checkpoint-packet"), CHECKPOINT_STORE);
        KStream<String, SpecificRecord> checked = builder
                .stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .process(() -> new CheckContract(policy), Named.as("check-contract"), CHECKPOINT_STORE,
                        REQUEST_STORE);
        BranchedKStream<String, SpecificRecord> out = checkpointed.merge(checked, Named.as("merge-steps"))
                .split(Named.as("timetravel-"));
        // Keyed <session>/<sequence> for compaction, but partitioned by session: a session's checkpoints stay in
        // one partition, in order, with the rest of its records.
        to(out, topics.checkpoints, "checkpoint", topics.checkpoints.produced().withStreamPartitioner(
                (topic, key, checkpoint, partitions) -> Optional.of(Set.of(Utils.toPositive(Utils.murmur2(
                        checkpoint.getSessionId().getBytes(StandardCharsets.UTF_8))) % partitions))));
        to(out, topics.events, "event", topics.events.produced());
        to(out, topics.requests, "retry", topics.requests.produced());
        to(out, topics.councilMessages, "escalation", topics.councilMessages.produced());
        out.noDefaultBranch();
    }

    private static <V extends SpecificRecord> void to(BranchedKStream<String, SpecificRecord> out,
                                                      Topic<String, V> topic, String name,
                                                      Produced<String, V> produced) {
        out.branch((key, record) -> topic.valueType().isInstance(record), Branched.withConsumer(records -> records
                .mapValues(record -> topic.valueType().cast(record), Named.as("as-" + name))
                .to(topic.name(), produced), name));
    }

    private static String requestKey(String session, String requestId) {
        return session + "/" + requestId;
    }

    private static Checkpoints.Position position(ProcessorContext<?, ?> context, Record<?, ?> record) {
        RecordMetadata metadata = context.recordMetadata()
                .orElseThrow(() -> new IllegalStateException("a checkpoint needs its source record's position"));
        return new Checkpoints.Position(metadata.topic(), metadata.partition(), metadata.offset(),
                Instant.ofEpochMilli(record.timestamp()));
    }

    /**
     * Original requests (not retries), kept so a failed answer can be asked again. Only valid ones: the assembly
     * dead-letters the others, and an oversized one would not even fit this store's changelog (a 10 MB prompt
     * failed the task here in the soak run before this check).
     */
    private static final class KeepRequest implements Processor<String, CognitionRequest, Void, Void> {
        private WindowStore<String, CognitionRequest> requests;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            requests = context.getStateStore(REQUEST_STORE);
        }

        @Override
        public void process(Record<String, CognitionRequest> record) {
            CognitionRequest request = RequestValidator.requireValid(record.value());
            if (request.getRetryCount() == 0) {
                requests.put(requestKey(request.getSessionId(), request.getRequestId()), request, record.timestamp());
            }
        }
    }

    /** One checkpoint per packet; a retry's packet also reports the pruning the assembly applied to it. */
    private static final class CheckpointPacket implements Processor<String, CognitionPacket, String, SpecificRecord> {
        private final StageContracts contracts;
        private ProcessorContext<String, SpecificRecord> context;
        private CheckpointStore checkpoints;

        CheckpointPacket(StageContracts contracts) {
            this.contracts = contracts;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            checkpoints = new CheckpointStore(context.getStateStore(CHECKPOINT_STORE));
        }

        @Override
        public void process(Record<String, CognitionPacket> record) {
            CognitionPacket packet = record.value();
            if (packet == null) {
                return;
            }
            String session = packet.getSessionId();
            boolean retry = packet.getMeta().getRetryCount() != null && packet.getMeta().getRetryCount() > 0;
            // A retry follows the checkpoint it travelled back to: the failed packet's, its parent.
            Optional<Checkpoint> previous = retry ? checkpoints.ofPacket(session, packet.getMeta().getParentId())
                    : checkpoints.latest(session);
            String stage = contracts.stageOf(packet.getHeader().getTaskInstructionKey()).map(Stage::name)
                    .orElse(Checkpoints.UNKNOWN_STAGE);
            Checkpoint checkpoint = Checkpoints.forPacket(packet, checkpoints.nextSequence(session), stage,
                    position(context, record), previous);
            checkpoints.put(checkpoint);
            context.forward(record.withKey(Checkpoints.key(checkpoint)).withValue(checkpoint));
            if (retry) {
                context.forward(record.withValue(AutoFixEvents.prune(packet, checkpoint)));
            }
        }
    }

    /** Judges an answer by its stage's contract and runs the AutoFix loop when it fails. */
    private static final class CheckContract implements Processor<String, LlmOutput, String, SpecificRecord> {
        private final AutoFixPolicy policy;
        private ProcessorContext<String, SpecificRecord> context;
        private CheckpointStore checkpoints;
        private WindowStore<String, CognitionRequest> requests;

        CheckContract(AutoFixPolicy policy) {
            this.policy = policy;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            checkpoints = new CheckpointStore(context.getStateStore(CHECKPOINT_STORE));
            requests = context.getStateStore(REQUEST_STORE);
        }

        @Override
        public void process(Record<String, LlmOutput> record) {
            LlmOutput output = record.value();
            if (output == null) {
                return;
            }
            Optional<Checkpoint> found = checkpoints.ofPacket(output.getSessionId(), output.getPacketId());
            if (found.isEmpty()) {
                LOG.warn("no checkpoint for packet {} of session {}: its answer is not checked against a contract",
                        output.getPacketId(), output.getSessionId());
                return;
            }
            Checkpoint packet = found.get();
            StageContracts.Result result = packet.getStage().equals(Checkpoints.UNKNOWN_STAGE)
                    ? new StageContracts.Result(StageContracts.Outcome.NONE, "", Optional.empty())
                    : StageContracts.check(Stage.valueOf(packet.getStage()), output.getText());
            String key = requestKey(output.getSessionId(), output.getRequestId());
            Optional<KeyValue<Long, CognitionRequest>> original = original(key);
            switch (result.outcome()) {
                case NONE -> forget(key, original);
                case PASSED -> {
                    if (packet.getStage().equals(Stage.VERIFY.name())) {
                        Checkpoint verified = Checkpoints.verified(packet,
                                checkpoints.nextSequence(output.getSessionId()), position(context, record));
                        checkpoints.put(verified);
                        context.forward(record.withKey(Checkpoints.key(verified)).withValue(verified));
                    }
                    if (packet.getRetryCount() > 0) {
                        context.forward(record.withValue(AutoFixEvents.recover(output, packet)));
                    }
                    forget(key, original);
                }
                case ESCALATE -> {
                    context.forward(record.withValue(AutoFixEvents.contractFailed(output, packet, result, "escalate")));
                    escalate(record, packet, result.reason(), result);
                    forget(key, original);
                }
                case RETRY -> {
                    if (policy.mayRetry(packet.getRetryCount()) && original.isPresent()) {
                        retry(record, packet, original.get().value, result);
                    } else {
                        String reason = original.isPresent() ? result.reason() : result.reason()
                                + " (the original request is no longer kept, so it cannot be retried)";
                        context.forward(record.withValue(AutoFixEvents.contractFailed(output, packet, result, "fail")));
                        context.forward(record.withValue(AutoFixEvents.fail(output, packet, reason,
                                policy.maxRetries())));
                        escalate(record, packet, "still failing after " + packet.getRetryCount() + " of "
                                + policy.maxRetries() + " retries: " + reason, result);
                        forget(key, original);
                    }
                }
            }
        }

        /** Attempt, travel back to the failed packet's checkpoint, and send the retry forked from there. */
        private void retry(Record<String, LlmOutput> record, Checkpoint failed, CognitionRequest original,
                           StageContracts.Result result) {
            LlmOutput output = record.value();
            CognitionRequest retry = policy.retry(original, failed, result.reason(), output.getTimestamp());
            context.forward(record.withValue(AutoFixEvents.contractFailed(output, failed, result, "retry")));
            context.forward(record.withValue(AutoFixEvents.attempt(output, failed, retry, policy.maxRetries())));
            context.forward(record.withValue(AutoFixEvents.travel(output, failed, retry)));
            context.forward(record.withKey(retry.getSessionId()).withValue(retry));
        }

        private void escalate(Record<String, LlmOutput> record, Checkpoint packet, String content,
                              StageContracts.Result result) {
            context.forward(record.withKey(RoutingTopology.COUNCIL_ID).withValue(
                    AutoFixEvents.escalation(record.value(), packet, content, result.confidence())));
        }

        /** The latest version kept under {@code key}, with the time it was stored at (its window). */
        private Optional<KeyValue<Long, CognitionRequest>> original(String key) {
            KeyValue<Long, CognitionRequest> latest = null;
            try (WindowStoreIterator<CognitionRequest> versions = requests.fetch(key, 0L, Long.MAX_VALUE)) {
                while (versions.hasNext()) {
                    latest = versions.next();
                }
            }
            return Optional.ofNullable(latest);
        }

        /** The request's last attempt is judged: nothing will ask for it again. */
        private void forget(String key, Optional<KeyValue<Long, CognitionRequest>> original) {
            original.ifPresent(kept -> requests.put(key, null, kept.key));
        }
    }
}
