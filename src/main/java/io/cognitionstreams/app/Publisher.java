package io.cognitionstreams.app;

import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import io.cognitionstreams.topics.Topic;

/** Writes records to one of the app's topics with its own serdes, waiting until the cluster has them all. */
public final class Publisher {

    private Publisher() {
    }

    public static <V> void publish(Map<String, Object> clientConfig, Topic<String, V> topic, Map<String, V> records) {
        Map<String, Object> config = new java.util.HashMap<>(clientConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<String, V> producer = new KafkaProducer<>(config, topic.keySerde().serializer(),
                topic.valueSerde().serializer())) {
            var sent = records.entrySet().stream()
                    .map(record -> producer.send(new ProducerRecord<>(topic.name(), record.getKey(), record.getValue())))
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
