package io.cognitionstreams.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.security.Principals;
import io.cognitionstreams.topics.Topic;

/**
 * Plain clients for integration tests: produce as the shared requests topic's writer, read committed as a channel
 * consumer would.
 */
public final class Kafka {

    private Kafka() {
    }

    /** Sent as {@link Logins#REQUESTS}, the shared requests topic's writer. */
    public static RecordMetadata send(String bootstrap, String topic, String key, byte[] value) {
        return send(Logins.as(bootstrap, Logins.REQUESTS), topic, key, value);
    }

    /** Sent with these client settings, e.g. {@code Logins.as(bootstrap, principal)} for another principal. */
    public static RecordMetadata send(Map<String, Object> client, String topic, String key, byte[] value) {
        Map<String, Object> config = new HashMap<>(client);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            return producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value)).get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot send to " + topic, e);
        }
    }

    public static <V> RecordMetadata send(String bootstrap, Topic<String, V> topic, String key, V value) {
        return send(Logins.as(bootstrap, Logins.REQUESTS), topic, key, value);
    }

    public static <V> RecordMetadata send(Map<String, Object> client, Topic<String, V> topic, String key, V value) {
        return send(client, topic.name(), key, topic.valueSerde().serializer().serialize(topic.name(), value));
    }

    /**
     * Every record of {@code topic} that matches {@code wanted}, from the beginning up to its last committed offset
     * when called (read_committed): for asserting that something was written exactly so many times.
     */
    public static <V> List<V> readAll(String bootstrap, Topic<String, V> topic, Predicate<V> wanted) {
        List<V> matched = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader(bootstrap)) {
            List<TopicPartition> partitions = partitions(consumer, topic.name());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    V value = decode(topic, record);
                    if (value != null && wanted.test(value)) {
                        matched.add(value);
                    }
                }
            }
        }
        return matched;
    }

    /**
     * Reads {@code topic} from the beginning, read_committed, until {@code done} holds for what matched
     * {@code wanted} so far, or fails after the timeout with what it saw.
     */
    public static <V> List<V> readUntil(String bootstrap, Topic<String, V> topic, Predicate<V> wanted,
                                        Predicate<List<V>> done, Duration timeout) {
        List<V> matched = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader(bootstrap)) {
            List<TopicPartition> partitions = partitions(consumer, topic.name());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!done.test(matched)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out after " + timeout + " reading " + topic.name()
                            + "; matched so far: " + matched);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    V value = decode(topic, record);
                    if (value != null && wanted.test(value)) {
                        matched.add(value);
                    }
                }
            }
        }
        return matched;
    }

    /** Every record of {@code topic} up to its end when called, as stored: for checking keys and bytes exactly. */
    public static List<ConsumerRecord<byte[], byte[]>> readRaw(String bootstrap, String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader(bootstrap)) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /** As the operator on a secured broker: it reads every topic and writes none. */
    private static KafkaConsumer<byte[], byte[]> committedReader(String bootstrap) {
        Map<String, Object> config = Logins.as(bootstrap, Principals.OPERATOR);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        return consumer.partitionsFor(topic).stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
    }

    /**
     * Tests share one broker and other tests put bad bytes on the same topics on purpose; those are not this
     * test's records: they read as null and are never offered to a predicate.
     */
    private static <V> V decode(Topic<String, V> topic, ConsumerRecord<byte[], byte[]> record) {
        try {
            return topic.valueSerde().deserializer().deserialize(topic.name(), record.value());
        } catch (org.apache.kafka.common.errors.SerializationException e) {
            return null;
        }
    }
}
