package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.management.ObjectName;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.testing.SharedBroker;

/**
 * On a real broker: a transaction left open past the watch's limit is reported with where it starts and how to
 * abort it, a committed one is not, and once aborted through the Admin API with what was reported, it is gone. A broker that loses markers cannot be
 * made to order, so "left open" is a producer that neither commits nor aborts, watched with a 1 s limit.
 */
@ExtendWith(SharedBroker.class)
class TransactionWatchIT {

    @Test
    void reportsATransactionLeftOpenAndForgetsItOnceAborted(EmbeddedKafkaBroker broker) throws Exception {
        String bootstrap = broker.bootstrapServers();
        Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        String topic = twoPartitions(client, "watch-");
        try (TransactionWatch watch = new TransactionWatch(client, "watch-it", bootstrap, List.of(topic),
                Duration.ofSeconds(1), id -> false, true);
             KafkaProducer<String, String> open = transactional(bootstrap, "left-open");
             KafkaProducer<String, String> committed = transactional(bootstrap, "committed")) {
            committed.beginTransaction();
            committed.send(new ProducerRecord<>(topic, 1, "k", "done"));
            committed.commitTransaction();
            open.beginTransaction();
            open.send(new ProducerRecord<>(topic, 0, "k", "first"));
            open.send(new ProducerRecord<>(topic, 0, "k", "second"));
            open.flush();
            Thread.sleep(2_500);

            List<OpenTransaction> found = ours(watch.check(), topic);
            assertThat(found).singleElement().satisfies(transaction -> {
                assertThat(transaction.partition()).isZero();
                assertThat(transaction.startOffset()).isZero();
                assertThat(transaction.abortCommand(bootstrap)).isEqualTo("kafka-transactions.sh --bootstrap-server "
                        + bootstrap + " abort --topic " + topic + " --partition 0 --start-offset 0");
            });
            Object gauge = ManagementFactory.getPlatformMBeanServer().getAttribute(
                    new ObjectName("cognition.health:type=transactions,application-id=watch-it"), "hanging-transactions");
            assertThat(gauge).isEqualTo(watch.hanging().size());

            // As an operator would, with nothing but what the watch reported: the broker writes the abort marker.
            try (Admin admin = Admin.create(client)) {
                admin.abortTransaction(TransactionWatch.abortSpec(found.get(0))).all().get(30, TimeUnit.SECONDS);
            }
            assertThat(ours(watch.check(), topic)).isEmpty();
        }
    }

    /**
     * A transaction of one of the app's own producers, with its consumer offsets, left open: the coordinator still
     * has it in progress, so the app does not abort it, however long it is silent; nor a stranger's.
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
                producer.send(new ProducerRecord<>(topic, producer == own ? 0 : 1, "k", "v"));
                producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)),
                        new ConsumerGroupMetadata("group-of-" + topic));
                producer.flush();
            }
            Thread.sleep(2_500);

            List<OpenTransaction> found = watch.check();
            assertThat(ours(found, topic)).hasSize(2);
            assertThat(found).anySatisfy(transaction -> assertThat(transaction.topic())
                    .isEqualTo(TransactionWatch.OFFSETS_TOPIC));
            assertThat(ours(watch.hanging(), topic)).as("both still open: neither was aborted").hasSize(2);
            Object aborted = ManagementFactory.getPlatformMBeanServer().getAttribute(
                    new ObjectName("cognition.health:type=transactions,application-id=watch-own"),
                    "aborted-transactions");
            assertThat(aborted).isEqualTo(0);
            // The coordinator's in-progress transaction still commits as its producer meant; its markers follow.
            own.commitTransaction();
            stranger.abortTransaction();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!ours(watch.check(), topic).isEmpty()) {
                assertThat(System.nanoTime()).as("markers written").isLessThan(deadline);
                Thread.sleep(200);
            }
        }
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
