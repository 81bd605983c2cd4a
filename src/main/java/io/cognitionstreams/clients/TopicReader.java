package io.cognitionstreams.clients;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic as it is now: read_committed, without a consumer group (no offsets move), from its beginning (or
 * the first record at or after a time) up to where each partition ends when the read starts.
 */
public final class TopicReader {

    public static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private TopicReader() {
    }

    /** What a reader of the app's topics starts from: read_committed, no commits. */
    public static Properties consumerConfig(Map<String, Object> clientConfig) {
        Properties props = new Properties();
        props.putAll(clientConfig);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // A reader must not create what it looks for: a topic made by a metadata request gets the broker's
        // defaults (not compacted), and the app would then find it wrongly configured.
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return props;
    }

    public static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
        return consumer.partitionsFor(topic, READ_TIMEOUT).stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
    }

    /**
     * The latest value of {@code key} on a compacted topic, as of the read's start: empty if it has none or its
     * latest is a tombstone. Every partition is read, since a producer may partition its own way.
     */
    public static Optional<byte[]> latestValue(Map<String, Object> clientConfig, String topic, String key) {
        byte[] wanted = key.getBytes(StandardCharsets.UTF_8);
        byte[][] latest = new byte[1][];
        readToEnd(clientConfig, topic, Optional.empty(), record -> {
            if (Arrays.equals(wanted, record.key())) {
                latest[0] = record.value();
            }
        });
        return Optional.ofNullable(latest[0]);
    }

    /**
     * Hands {@code each} every record of {@code topic} in offset order per partition, from the beginning or the first
     * record at or after {@code from}, up to the end offsets of when it started.
     *
     * @throws IllegalStateException no record arrived for {@link #READ_TIMEOUT} before the end was reached
     */
    public static void readToEnd(Map<String, Object> clientConfig, String topic, Optional<Instant> from,
                                 Consumer<ConsumerRecord<byte[], byte[]>> each) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(clientConfig),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, READ_TIMEOUT);
            consumer.seekToBeginning(partitions);
            if (from.isPresent()) {
                Map<TopicPartition, Long> at = new HashMap<>();
                partitions.forEach(partition -> at.put(partition, from.get().toEpochMilli()));
                for (Map.Entry<TopicPartition, OffsetAndTimestamp> found
                        : consumer.offsetsForTimes(at, READ_TIMEOUT).entrySet()) {
                    // No record at or after the time: nothing to read there.
                    consumer.seek(found.getKey(), found.getValue() != null ? found.getValue().offset()
                            : end.get(found.getKey()));
                }
            }
            long lastRecord = System.nanoTime();
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < end.get(partition))) {
                if (System.nanoTime() - lastRecord > READ_TIMEOUT.toNanos()) {
                    throw new IllegalStateException("no record of " + topic + " arrived for "
                            + READ_TIMEOUT.toSeconds() + " s before its end");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    lastRecord = System.nanoTime();
                    if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))) {
                        each.accept(record);
                    }
                }
            }
        }
    }
}
