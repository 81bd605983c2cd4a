package io.cognitionstreams.app;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

import io.cognitionstreams.clients.ClientPrincipal;
import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.topics.Topic;

/**
 * Writes records to one of the app's topics with its own serdes, waiting until the cluster has them all. Each record
 * names its writer in a {@link ClientPrincipal#HEADER header}, which the audit of governed records reports.
 */
public final class Publisher {

    private Publisher() {
    }

    /**
     * As {@link #publish}, but only the records that differ, in more than their {@code timestamp}, from their key's
     * latest value on the topic. {@code run} publishes its skills and tools at every start: written again unchanged,
     * each start added a record per key, which every global store then read at every start until compaction.
     * A latest value that cannot be read (or a tombstone) counts as different.
     *
     * @return what was written
     */
    public static <V extends SpecificRecord> Map<String, V> publishChanged(Map<String, Object> clientConfig,
                                                                          Topic<String, V> topic,
                                                                          Map<String, V> records) {
        Map<String, V> changed = new LinkedHashMap<>(records);
        Map<String, byte[]> latest = new HashMap<>();
        TopicReader.readToEnd(clientConfig, topic.name(), Optional.empty(), record -> {
            if (record.key() != null) {
                latest.put(new String(record.key(), StandardCharsets.UTF_8), record.value());
            }
        });
        changed.entrySet().removeIf(record -> sameButTimestamp(topic, latest.get(record.getKey()),
                record.getValue()));
        if (!changed.isEmpty()) {
            publish(clientConfig, topic, changed);
        }
        return changed;
    }

    private static <V extends SpecificRecord> boolean sameButTimestamp(Topic<String, V> topic, byte[] published,
                                                                       V record) {
        if (published == null) {
            return false;
        }
        V old;
        try {
            old = topic.valueSerde().deserializer().deserialize(topic.name(), published);
        } catch (RuntimeException unreadable) {
            return false;
        }
        Schema.Field timestamp = record.getSchema().getField("timestamp");
        if (old == null || timestamp == null || !old.getSchema().equals(record.getSchema())) {
            return false;
        }
        V aligned = SpecificData.get().deepCopy(old.getSchema(), old);
        aligned.put(timestamp.pos(), record.get(timestamp.pos()));
        return Objects.equals(aligned, record);
    }

    public static <V> void publish(Map<String, Object> clientConfig, Topic<String, V> topic, Map<String, V> records) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        byte[] writer = ClientPrincipal.describe(clientConfig, System.getProperty("user.name"))
                .getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<String, V> producer = new KafkaProducer<>(config, topic.keySerde().serializer(),
                topic.valueSerde().serializer())) {
            var sent = records.entrySet().stream()
                    .map(record -> producer.send(new ProducerRecord<>(topic.name(), null, record.getKey(),
                            record.getValue(), List.of(new RecordHeader(ClientPrincipal.HEADER, writer)))))
                    .toList();
            for (var future : sent) {
                future.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot write to " + topic.name() + ": " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to " + topic.name(), e);
        }
    }
}
