package io.cognitionstreams.app;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

import io.cognitionstreams.clients.ClientPrincipal;
import io.cognitionstreams.topics.Topic;

/**
 * Writes records to one of the app's topics with its own serdes, waiting until the cluster has them all. Each record
 * names its writer in a {@link ClientPrincipal#HEADER header}, which the audit of governed records reports.
 */
public final class Publisher {

    private Publisher() {
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
