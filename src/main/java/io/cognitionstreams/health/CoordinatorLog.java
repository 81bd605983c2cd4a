package io.cognitionstreams.health;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.transaction.TransactionLog;
import org.apache.kafka.coordinator.transaction.TransactionMetadata;

import io.cognitionstreams.health.TransactionOutcomes.Logged;
import io.cognitionstreams.health.TransactionOutcomes.Status;

/**
 * Reads what the transaction coordinators wrote of some transactional ids to their log, {@code __transaction_state},
 * decoded with Kafka's own {@link TransactionLog}. Needs READ on that internal topic: the embedded broker allows it,
 * a secured cluster only to a principal given it.
 */
final class CoordinatorLog {

    static final String TOPIC = "__transaction_state";

    private CoordinatorLog() {
    }

    /**
     * The records of {@code transactionalIds} written since {@code since}, to the end of the log as it is now, in
     * log order within each partition of the log.
     */
    static List<Logged> read(Map<String, Object> client, Admin admin, Collection<String> transactionalIds,
                             Instant since, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int partitions = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(TOPIC).partitions().size();
        Set<String> wanted = new HashSet<>(transactionalIds);
        Set<TopicPartition> holding = new HashSet<>();
        // Where the coordinator keeps an id: its TransactionStateManager.partitionFor.
        wanted.forEach(id -> holding.add(new TopicPartition(TOPIC, Utils.abs(id.hashCode()) % partitions)));
        Map<String, Object> props = new HashMap<>(client);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "cognition-transaction-log-reader");
        List<Logged> found = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(holding);
            Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(holding, timeout));
            Map<TopicPartition, Long> query = new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
            holding.forEach(partition -> query.put(partition, since.toEpochMilli()));
            Map<TopicPartition, OffsetAndTimestamp> from = consumer.offsetsForTimes(query, timeout);
            for (TopicPartition partition : holding) {
                OffsetAndTimestamp at = from.get(partition);
                consumer.seek(partition, at != null ? at.offset() : ends.get(partition));
            }
            ends.entrySet().removeIf(end -> consumer.position(end.getKey()) >= end.getValue());
            while (!ends.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("reading " + TOPIC + " took longer than " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    decode(record, wanted).ifPresent(found::add);
                }
                ends.entrySet().removeIf(end -> consumer.position(end.getKey()) >= end.getValue());
            }
        }
        return found;
    }

    private static Optional<Logged> decode(ConsumerRecord<byte[], byte[]> record, Set<String> wanted) {
        if (record.key() == null || record.value() == null) {
            return Optional.empty();
        }
        TransactionLog.ReadResult read = TransactionLog.read(ByteBuffer.wrap(record.key()),
                ByteBuffer.wrap(record.value()));
        if (!(read instanceof TransactionLog.TxnRecord logged) || !wanted.contains(logged.transactionId())) {
            return Optional.empty();
        }
        TransactionMetadata metadata = logged.metadata();
        Set<String> partitions = new HashSet<>();
        metadata.topicPartitions().forEach(partition -> partitions.add(partition.topic() + "-"
                + partition.partition()));
        return Optional.of(new Logged(record.offset(), record.leaderEpoch().orElse(-1),
                logged.transactionId(), metadata.producerId(), metadata.producerEpoch(),
                Status.valueOf(metadata.state().name()), partitions,
                metadata.clientTransactionVersion().featureLevel()));
    }
}
