package io.cognitionstreams.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntConsumer;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Records a command writes in one transaction: read_committed readers (the app) see all of them or none. */
final class Transactions {

    private Transactions() {
    }

    /** What a command's producer starts from: idempotent, acks from every in-sync replica. */
    static Map<String, Object> producerConfig(Map<String, Object> clientConfig) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return config;
    }

    /**
     * Sends {@code records} in order and commits; on a failure the transaction is aborted and the failure thrown.
     *
     * @param purpose names the transactional id, {@code cognition-cli-<purpose>-<random>}
     * @param sent    told the count of records handed to the producer so far, after each one
     */
    static void sendAll(Map<String, Object> clientConfig, String purpose, List<ProducerRecord<byte[], byte[]>> records,
                        IntConsumer sent) {
        Map<String, Object> config = producerConfig(clientConfig);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "cognition-cli-" + purpose + "-" + UUID.randomUUID());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            try {
                for (int i = 0; i < records.size(); i++) {
                    producer.send(records.get(i));
                    sent.accept(i + 1);
                }
                producer.commitTransaction();
            } catch (KafkaException e) {
                producer.abortTransaction();
                throw e;
            }
        }
    }
}
