package io.cognitionstreams.timetravel;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.security.TenantBinding;
import io.cognitionstreams.telemetry.IntervalLog;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.CouncilSeal;
import io.cognitionstreams.topology.Outputs;
import io.cognitionstreams.topology.WindowStores;

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
    /** Answers whose packet has no checkpoint, which are not checked against a contract: a metric, not a log line. */
    public static final String UNCHECKED_METRIC = "unchecked-answers";

    private TimeTravelTopology() {
    }

    public static void build(StreamsBuilder builder, Topics topics, StageContracts contracts, AutoFixPolicy policy,
                             CouncilSeal seal) {
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(CHECKPOINT_STORE),
                Serdes.String(), topics.checkpoints.valueSerde()));
        builder.addStateStore(Stores.windowStoreBuilder(WindowStores.persistent(REQUEST_STORE,
                REQUEST_RETENTION, REQUEST_RETENTION), Serdes.String(), topics.requests.valueSerde()));
        IntervalLog unchecked = new IntervalLog(LoggerFactory.getLogger(TimeTravelTopology.class),
                "answers not checked against a contract, their packets have no checkpoint", Duration.ofMinutes(1));

        // Each tenant's requests too, so its sessions are retried like the rest. A request its tenant's topic does
        // not vouch for is not kept: assembly dead-letters it, and kept it could stand in for another tenant's
        // original in a retry, which goes out on the trusted shared topic.
        builder.stream(topics.requestTopicNames(), topics.requests.consumed())
                .process(() -> new Step<CognitionRequest>(contracts, policy, unchecked, (loop, memory, request, at) -> {
                    if (TenantBinding.isBound(at.topic(), request)) {
                        loop.keep(memory, request, at.timestamp().toEpochMilli());
                    }
                    return List.of();
                }), Named.as("keep-request"), REQUEST_STORE, CHECKPOINT_STORE);
        KStream<String, SpecificRecord> checkpointed = builder
                .stream(topics.packets.name(), topics.packets.consumed())
                .process(() -> new Step<>(contracts, policy, unchecked, AutoFixLoop::checkpoint),
                        Named.as("checkpoint-packet"), CHECKPOINT_STORE, REQUEST_STORE);
        KStream<String, SpecificRecord> checked = builder
                .stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .process(() -> new Step<>(contracts, policy, unchecked, AutoFixLoop::judge),
                        Named.as("check-contract"), CHECKPOINT_STORE, REQUEST_STORE);
        // Checkpoints are keyed <session>/<sequence> for compaction, but partitioned by session: a session's
        // checkpoints stay in one partition, in order, with the rest of its records.
        Outputs.of(checkpointed.merge(checked, Named.as("merge-steps")), "timetravel")
                .sealingCouncilMessagesWith(seal)
                .to(topics.checkpoints, topics.checkpoints.produced().withStreamPartitioner(
                        (topic, key, checkpoint, partitions) -> Optional.of(Set.of(Utils.toPositive(Utils.murmur2(
                                checkpoint.getSessionId().getBytes(StandardCharsets.UTF_8))) % partitions))))
                .to(topics.events)
                .to(topics.requests)
                .to(topics.councilMessages)
                .end();
    }

    /** One step of the loop on one record. */
    private interface Action<V> {
        List<AutoFixLoop.Keyed> apply(AutoFixLoop loop, AutoFixLoop.Memory memory, V value,
                                      Checkpoints.Position at);
    }

    /** Runs one step of the loop on each record and forwards what it leads to, each under its own key. */
    private static final class Step<V> implements Processor<String, V, String, SpecificRecord> {
        private final StageContracts contracts;
        private final AutoFixPolicy policy;
        private final IntervalLog unchecked;
        private final Action<V> action;
        private ProcessorContext<String, SpecificRecord> context;
        private AutoFixLoop loop;
        private AutoFixLoop.Memory memory;

        Step(StageContracts contracts, AutoFixPolicy policy, IntervalLog unchecked, Action<V> action) {
            this.contracts = contracts;
            this.policy = policy;
            this.unchecked = unchecked;
            this.action = action;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            // JMX: stream-timetravel-metrics, unchecked-answers-total and -rate.
            Sensor counted = context.metrics().addRateTotalSensor(NAME, "answers", UNCHECKED_METRIC,
                    Sensor.RecordingLevel.INFO);
            loop = new AutoFixLoop(contracts, policy, detail -> {
                unchecked.warn(detail);
                counted.record();
            });
            memory = new CheckpointStore(context.getStateStore(CHECKPOINT_STORE), context.getStateStore(REQUEST_STORE));
        }

        @Override
        public void process(Record<String, V> record) {
            RecordMetadata metadata = context.recordMetadata()
                    .orElseThrow(() -> new IllegalStateException("a checkpoint needs its source record's position"));
            Checkpoints.Position at = new Checkpoints.Position(metadata.topic(), metadata.partition(),
                    metadata.offset(), Instant.ofEpochMilli(record.timestamp()));
            for (AutoFixLoop.Keyed out : action.apply(loop, memory, record.value(), at)) {
                context.forward(record.withKey(out.key()).withValue(out.value()));
            }
        }
    }
}
