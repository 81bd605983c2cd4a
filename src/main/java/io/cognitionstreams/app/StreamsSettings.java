package io.cognitionstreams.app;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

import io.cognitionstreams.assembly.AssemblyTopology;
import io.cognitionstreams.clients.GroupTimeouts;
import io.cognitionstreams.council.CouncilTopology;
import io.cognitionstreams.deadletter.DeadLetterHandler;
import io.cognitionstreams.gatekeeper.GatekeeperTopology;
import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.topology.InputGate;

/** The Kafka Streams configuration the app runs with. */
public final class StreamsSettings {

    private StreamsSettings() {
    }

    /** The configuration of one capability's Kafka Streams application. */
    public static Properties of(Settings settings, String capability, java.util.Set<String> secondaryInputs) {
        Properties props = new Properties();
        props.putAll(restoreFetchWaits());
        // The operator's client settings next: every value below is the app's own and wins.
        props.putAll(settings.clientProperties());
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId(settings.applicationId(), capability));
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, settings.stateDir().toString());
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) settings.replicationFactor());
        // Assembly is where the CPU goes (embeddings above all); the other capabilities mostly wait on Kafka.
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, capability.equals(AssemblyTopology.NAME)
                ? Math.max(settings.streamThreads(), settings.tuning().assemblyThreads()) : settings.streamThreads());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, settings.tuning().commitInterval().toMillis());
        if (APPROVAL_PATH.contains(capability)) {
            props.put(StreamsConfig.POLL_MS_CONFIG, pollMs(settings.tuning().commitInterval()));
        }
        props.putAll(errorHandling());
        props.putAll(bounded(settings));
        props.put(DeadLetterHandler.SECONDARY_INPUTS, String.join(",", new java.util.TreeSet<>(secondaryInputs)));
        // What a dead instance's open transaction holds its outputs' readers for, until the broker aborts it.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                (int) GroupTimeouts.transaction(settings.tuning().sessionTimeout()).toMillis());
        if (settings.tuning().groupProtocol() == GroupProtocol.STREAMS) {
            // The broker runs the group: session, heartbeats and standbys are its configuration there
            // (groupConfigs), and static membership is refused.
            props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, GroupProtocol.STREAMS.config());
        } else {
            props.putAll(classicGroup(settings, capability));
        }
        settings.schemaRegistryUrl().ifPresent(url -> props.put(AvroSerdes.SCHEMA_REGISTRY_URL, url));
        return props;
    }

    /**
     * The capabilities a gated tool call waits on twice or more (its PENDING decision and proposal, the council's
     * decision, its final decision): their idle stream threads poll {@link #pollMs} rather than Kafka's 100 ms.
     */
    static final Set<String> APPROVAL_PATH = Set.of(GatekeeperTopology.NAME,
            CouncilTopology.NAME);

    /**
     * How long an idle stream thread of the approval path blocks in poll. A thread checks whether a commit is due only
     * between polls, and only commits when the interval has passed since its last check that was due, with or
     * without work. So with Kafka's 100 ms an output processed just after such a check waited for the next input or
     * that poll's end, up to 100 ms, before its transaction committed and anyone could read it (the council's
     * decisions waited 75 ms p50 at 10 gated calls/s); a poll as long as the interval made every output wait a whole
     * interval. A fifth of it bounds the wait near the interval, for 200 short wake-ups a second of an idle thread:
     * every capability's took an idle app from 13 % to 30 % of a core, so only the approval path's do.
     */
    static long pollMs(Duration commitInterval) {
        return Math.max(1, commitInterval.toMillis() / 5);
    }

    /**
     * What a capability may hold in memory however far behind it is: a backlog of any size waits in Kafka, not in
     * the heap. Kafka Streams' defaults suit one application per JVM with the heap to itself; here six share it with
     * the embedded broker, and their defaults add up to more than the default heap (1,000 records buffered per input
     * partition, a 10 MiB record cache, 32 MiB of producer buffer per thread, fetches of up to 50 MiB), which a
     * backlog fills. RocksDB's memory is one budget for the process ({@link RocksDbMemory}).
     */
    static Properties bounded(Settings settings) {
        Properties props = new Properties();
        props.put(StreamsConfig.BUFFERED_RECORDS_PER_PARTITION_CONFIG, BUFFERED_RECORDS_PER_PARTITION);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, CACHE_BYTES);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_BYTES_CONFIG), FETCH_MAX_BYTES);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.BUFFER_MEMORY_CONFIG), PRODUCER_BUFFER_BYTES);
        props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, RocksDbMemory.class);
        props.put(RocksDbMemory.BUDGET_CONFIG, settings.tuning().stateStoreMemory());
        return props;
    }

    /** How long the global and restore consumers' fetches may wait at the broker for data (Kafka's: 500 ms). */
    static final int GLOBAL_FETCH_WAIT_MS = 100;
    static final int RESTORE_FETCH_WAIT_MS = 50;

    /**
     * Shorter fetch waits for the consumers that load stores, which an operator's client settings may change. A
     * consumer has one fetch in flight per broker: once a global store's records are in, its next fetch waits at the
     * broker for data that does not come, and the next store's restore waits behind it. Each store with records
     * cost a start Kafka's 500 ms, one after another: 2.1 s of the assembly's four global stores holding nine
     * records. At 100 ms it is 0.7 s. The global consumer also polls an idle app ten times a second where it polled
     * twice: about 3 % of a core more for the whole app at rest (docs/operations.md, "Starting again"). The restore
     * consumer only runs while a store restores.
     */
    static Properties restoreFetchWaits() {
        Properties props = new Properties();
        props.put(StreamsConfig.globalConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), GLOBAL_FETCH_WAIT_MS);
        props.put(StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), RESTORE_FETCH_WAIT_MS);
        return props;
    }

    /** Records Kafka Streams buffers per input partition before it pauses fetching it. */
    static final int BUFFERED_RECORDS_PER_PARTITION = 200;
    /** Each capability's record cache across its threads. */
    static final long CACHE_BYTES = 4L * 1024 * 1024;
    /** What one fetch may bring back, over all its partitions. */
    public static final int FETCH_MAX_BYTES = 8 * 1024 * 1024;
    /** What a producer may hold unsent before send blocks. */
    public static final long PRODUCER_BUFFER_BYTES = 8L * 1024 * 1024;

    /** The group settings the classic protocol takes from each client. */
    private static Properties classicGroup(Settings settings, String capability) {
        Properties props = new Properties();
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, settings.tuning().standbyReplicas());
        // How long a dead instance's tasks wait before another instance takes them over.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
                (int) settings.tuning().sessionTimeout().toMillis());
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
                (int) GroupTimeouts.heartbeat(settings.tuning().sessionTimeout()).toMillis());
        // Static membership: a restarted instance (the same state directory) takes its own place in the group at
        // once instead of waiting for its dead predecessor's session to expire, and keeps its tasks without a
        // rebalance. Kafka Streams adds each thread's index.
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
                applicationId(settings.applicationId(), capability) + "-" + InstanceId.of(settings.stateDir()));
        return props;
    }

    /**
     * Under the streams protocol, what the classic one sets on the client: a capability's group configuration on
     * the broker (KIP-1071), within the brokers' group.streams.min/max.* bounds.
     */
    public static Map<String, String> groupConfigs(Settings settings) {
        Duration session = settings.tuning().sessionTimeout();
        // The broker's GroupConfig names; no client class has them.
        return Map.of("streams.session.timeout.ms", String.valueOf(session.toMillis()),
                "streams.heartbeat.interval.ms", String.valueOf(GroupTimeouts.heartbeat(session).toMillis()),
                "streams.num.standby.replicas", String.valueOf(settings.tuning().standbyReplicas()));
    }

    /** The Kafka Streams application id of one capability: its group, and the prefix of its internal topics. */
    public static String applicationId(String applicationId, String capability) {
        return applicationId + "-" + capability;
    }

    /** Every error path ends in cognition.dlq; shared with tests so they run with the app's exact handlers. */
    public static Properties errorHandling() {
        Properties props = new Properties();
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandler.class);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandler.class);
        props.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandler.class);
        // The global stores decode their own input and never throw (GlobalMirror); should one throw all the same,
        // the handler lets the record pass rather than stop the global thread, and governance letters it.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        // Kafka 4.3.1's partition assignor reads a StreamsConfig of the main consumer's settings alone, which lack it,
        // and warned at every start, once per stream thread, to set what is set.
        props.put(StreamsConfig.mainConsumerPrefix(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG),
                true);
        // Refuses an input whose output the brokers refused, before anything of it is written (the topology must
        // be built with these properties for it to apply: Pipeline.topology does).
        props.put(StreamsConfig.PROCESSOR_WRAPPER_CLASS_CONFIG, InputGate.class);
        return props;
    }
}
