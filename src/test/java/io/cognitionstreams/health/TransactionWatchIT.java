package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.management.ObjectName;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.testing.SharedBroker;

/**
 * On a real broker, what the watch must leave alone: transactions their coordinator still has in progress, the
 * app's own and another application's, however long they are silent. A transaction whose coordinator lost its
 * markers, which the watch settles or reports, takes three brokers to make: {@link LostMarkersIT}.
 */
@ExtendWith(SharedBroker.class)
class TransactionWatchIT {

    /**
     * A transaction its producer leaves open, silent past the watch's limit, is not taken for hanging while its
     * coordinator still has it (the coordinator times it out); an operator who aborts it all the same with the spec
     * the watch builds closes it, and a committed transaction beside it is untouched.
     */
    @Test
    void aTransactionLeftOpenIsNotHangingAndTheSpecItGivesClosesIt(EmbeddedKafkaBroker broker) throws Exception {
        String bootstrap = broker.bootstrapServers();
        Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        String topic = twoPartitions(client, "watch-");
        try (TransactionWatch watch = new TransactionWatch(client, "watch-it", bootstrap, List.of(topic),
                Duration.ofSeconds(1), id -> false, true);
             KafkaProducer<String, String> open = transactional(bootstrap, "left-open");
             KafkaProducer<String, String> committed = transactional(bootstrap, "committed");
             Admin admin = Admin.create(client)) {
            committed.beginTransaction();
            committed.send(new ProducerRecord<>(topic, 1, "k", "done"));
            committed.commitTransaction();
            open.beginTransaction();
            open.send(new ProducerRecord<>(topic, 0, "k", "first"));
            open.send(new ProducerRecord<>(topic, 0, "k", "second"));
            open.flush();
            Thread.sleep(2_500);

            assertThat(ours(watch.check(), topic)).isEmpty();
            assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(
                    new ObjectName("cognition.health:type=transactions,application-id=watch-it"),
                    "hanging-transactions")).isEqualTo(0);

            TopicPartition partition = new TopicPartition(topic, 0);
            ProducerState state = admin.describeProducers(List.of(partition)).partitionResult(partition)
                    .get(30, TimeUnit.SECONDS).activeProducers().get(0);
            OpenTransaction leftOpen = new OpenTransaction(topic, 0, state.producerId(), state.producerEpoch(),
                    state.coordinatorEpoch().orElse(-1), state.currentTransactionStartOffset().getAsLong(),
                    Instant.ofEpochMilli(state.lastTimestamp()));
            assertThat(leftOpen.abortCommand(bootstrap)).isEqualTo("kafka-transactions.sh --bootstrap-server "
                    + bootstrap + " abort --topic " + topic + " --partition 0 --start-offset 0");
            admin.abortTransaction(TransactionWatch.abortSpec(leftOpen)).all().get(30, TimeUnit.SECONDS);
            assertThat(readCommitted(bootstrap, topic)).containsExactly("done");
        }
    }

    /**
     * A transaction of one of the app's own producers, with its consumer offsets, left open, and a stranger's: the
     * coordinator still has them in progress (it completes or times them out itself), so neither hangs, however
     * long it is silent and however old its records' timestamps, and neither is touched.
     */
    @Test
    void neverAbortsWhatItsCoordinatorStillHoldsNorAnotherApplicationsTransaction(EmbeddedKafkaBroker broker)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        String topic = twoPartitions(client, "watch-own-");
        try (TransactionWatch watch = new TransactionWatch(client, "watch-own", bootstrap, List.of(topic),
                Duration.ofSeconds(1), id -> id.startsWith("app-"), true);
             KafkaProducer<String, String> own = transactional(bootstrap, "app-model-worker");
             KafkaProducer<String, String> stranger = transactional(bootstrap, "stranger")) {
            for (var producer : List.of(own, stranger)) {
                producer.beginTransaction();
                // Stamped an hour ago, as Kafka Streams stamps an output of an old input.
                producer.send(new ProducerRecord<>(topic, producer == own ? 0 : 1,
                        System.currentTimeMillis() - 3_600_000, "k", "v"));
                producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)),
                        new ConsumerGroupMetadata("group-of-" + topic));
                producer.flush();
            }
            Thread.sleep(2_500);

            assertThat(ours(watch.check(), topic)).as("in progress at their coordinator: not hanging").isEmpty();
            assertThat(watch.hanging()).isEmpty();
            Object aborted = ManagementFactory.getPlatformMBeanServer().getAttribute(
                    new ObjectName("cognition.health:type=transactions,application-id=watch-own"),
                    "aborted-transactions");
            assertThat(aborted).isEqualTo(0);
            // The coordinator's in-progress transactions end as their producers meant: nothing was aborted under them.
            own.commitTransaction();
            stranger.abortTransaction();
            assertThat(readCommitted(bootstrap, topic)).containsExactly("v");
        }
    }

    private static List<String> readCommitted(String bootstrap, String topic) {
        List<String> values = new java.util.ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
            }
            // Whatever else arrives in a moment (the stranger's, were it wrongly committed).
            consumer.poll(Duration.ofSeconds(1)).forEach(record -> values.add(record.value()));
        }
        return values;
    }

    private static String twoPartitions(Map<String, Object> client, String prefix) throws Exception {
        String topic = prefix + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(client)) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(2), Optional.empty()))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        return topic;
    }

    private static List<OpenTransaction> ours(List<OpenTransaction> hanging, String topic) {
        return hanging.stream().filter(transaction -> transaction.topic().equals(topic)).toList();
    }

    private static KafkaProducer<String, String> transactional(String bootstrap, String name) {
        KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, name + "-" + UUID.randomUUID(),
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000), new StringSerializer(), new StringSerializer());
        producer.initTransactions();
        return producer;
    }
}
