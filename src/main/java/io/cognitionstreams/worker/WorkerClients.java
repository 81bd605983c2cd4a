package io.cognitionstreams.worker;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.clients.GroupTimeouts;
import io.cognitionstreams.topics.OutputGuard;

/**
 * The consumer and transactional producer of a worker loop ({@link TransactionalLoop}, {@link ParallelLoop}): one
 * static group member and one transactional id per instance, so a restarted instance takes its own place at once
 * and fences its dead self, and zombies of another instance are fenced by the group generation (EOS v2, KIP-447).
 */
final class WorkerClients {

    private final Properties consumerProps = new Properties();
    private final Properties producerProps = new Properties();

    /** What a poll that gathers waits for at the broker: more than it ever gathers, so it waits its whole time. */
    static final int GATHER_BYTES = 1024 * 1024;

    /**
     * @param clientConfig    bootstrap servers and any security settings, shared by consumer and producer
     * @param instanceId      this process's name, the same across its restarts (the app's {@code InstanceId})
     * @param maxPollRecords  records one poll returns at most
     * @param maxPollInterval how long the loop may go without a poll before the group gives its partitions away
     * @param sessionTimeout  how long a worker that dies for good keeps its partitions
     * @param gather          how long a fetch waits at the broker for more records before it returns what there
     *                        is (zero: Kafka's default, it returns as soon as there is any)
     */
    WorkerClients(Map<String, Object> clientConfig, String groupId, String instanceId, int maxPollRecords,
                  Duration maxPollInterval, Duration sessionTimeout, Duration gather) {
        consumerProps.putAll(clientConfig);
        if (!gather.isZero() && !gather.isNegative()) {
            consumerProps.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, GATHER_BYTES);
            consumerProps.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) gather.toMillis());
        }
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        consumerProps.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) maxPollInterval.toMillis());
        // A backlog waits in Kafka, not in this heap, which the app's other clients and the embedded broker share.
        consumerProps.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, TransactionalLoop.MAX_BUFFERED_BYTES);
        // A worker that dies for good keeps its partitions until its session expires: the stream threads' value
        // (15 s by default), not the client's 45 s, so another instance takes over sooner.
        consumerProps.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) sessionTimeout.toMillis());
        consumerProps.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                (int) GroupTimeouts.heartbeat(sessionTimeout).toMillis());
        // A static member: restarted (the same instance id), it takes its own place at once rather than waiting
        // for the dead member's session to expire.
        consumerProps.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, groupId + "-" + instanceId);
        producerProps.putAll(clientConfig);
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.BUFFER_MEMORY_CONFIG, (long) TransactionalLoop.MAX_BUFFERED_BYTES);
        // The same id after a restart, so the new producer fences the dead one and aborts its open transaction at
        // once; zombies of another instance are fenced by the group generation (EOS v2, KIP-447).
        producerProps.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, groupId + "-" + instanceId);
        // Only for a transaction whose process never comes back (its id with it): the broker aborts it after
        // this long, and until then read_committed readers of the outputs wait.
        producerProps.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                (int) GroupTimeouts.transaction(sessionTimeout).toMillis());
    }

    KafkaConsumer<byte[], byte[]> consumer() {
        return new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Sends within the current transaction. A record the broker refuses aborts it; remembered ({@link OutputGuard}),
     * the same record is refused before it is sent when its input is read again, so the handler can dead-letter the
     * input instead of reading it forever.
     */
    static void send(KafkaProducer<byte[], byte[]> producer, ProducerRecord<byte[], byte[]> record) {
        producer.send(record, (metadata, error) -> {
            if (error != null && OutputGuard.isRefusalOfTheRecord(error)) {
                OutputGuard.remember(record.topic(), record.value(), error);
            }
        });
    }

    /**
     * Stopping, the member leaves so that another instance takes its partitions at once; starting over, it stays,
     * and the new consumer takes its place.
     */
    static CloseOptions closing(boolean startingOver) {
        return CloseOptions.groupMembershipOperation(startingOver
                ? CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP
                : CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
    }
}
