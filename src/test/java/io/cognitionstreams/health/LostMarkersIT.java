package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.management.ObjectName;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.testing.BrokerCluster;

/**
 * KAFKA-20734 made to order, on three real brokers: a transaction open on a partition whose only replica is on a
 * node that is then killed is committed while that partition has no leader. Its coordinator takes the partition for
 * deleted, drops its marker and completes the transaction in its log; once the node is back, the transaction hangs
 * there for good, its committed record invisible to read_committed readers. The watch reads the coordinator's
 * decision from {@code __transaction_state} and writes the COMMIT marker it lost: the record becomes visible, once.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LostMarkersIT {

    private static final Duration START = Duration.ofMinutes(2);

    @Test
    void aCommitWhoseMarkerTheCoordinatorDroppedIsSettledAsCommitted(@TempDir Path dir) throws Exception {
        try (BrokerCluster cluster = BrokerCluster.start(dir, 3, START)) {
            String bootstrap = cluster.bootstrapServers();
            Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            TopicPartition lost = new TopicPartition("lost", 0);
            TopicPartition kept = new TopicPartition("kept", 0);
            try (Admin admin = Admin.create(client)) {
                admin.createTopics(List.of(
                        new NewTopic(lost.topic(), Map.of(0, List.of(3))).configs(Map.of("min.insync.replicas",
                                "1")),
                        new NewTopic(kept.topic(), Map.of(0, List.of(1, 2))))).all().get(1, TimeUnit.MINUTES);
                try (KafkaProducer<String, String> producer = transactional(bootstrap)) {
                    producer.beginTransaction();
                    producer.send(new ProducerRecord<>(lost.topic(), lost.partition(), "k", "committed-on-lost"));
                    producer.send(new ProducerRecord<>(kept.topic(), kept.partition(), "k", "committed-on-kept"));
                    producer.flush();
                    cluster.kill(3);
                    awaitLeaderless(admin, lost);
                    producer.commitTransaction();
                }
                cluster.restart(3, START);
            }
            assertThat(readCommitted(bootstrap, kept, Duration.ofSeconds(20))).containsExactly("committed-on-kept");
            assertThat(readCommitted(bootstrap, lost, Duration.ofSeconds(3)))
                    .as("the marker was lost: read_committed readers stop at the open transaction").isEmpty();

            // Aborting turned off (a secured app): reported with where it starts, left as it is.
            try (TransactionWatch reporting = new TransactionWatch(client, "lost-markers-reported", bootstrap,
                    List.of(lost.topic(), kept.topic()), Duration.ofSeconds(1), id -> id.startsWith("app-"),
                    false)) {
                assertThat(reporting.check()).singleElement().satisfies(transaction -> {
                    assertThat(transaction.topic() + "-" + transaction.partition()).isEqualTo("lost-0");
                    assertThat(transaction.abortCommand(bootstrap)).endsWith("abort --topic lost --partition 0 "
                            + "--start-offset 0");
                });
                assertThat(reporting.hanging()).hasSize(1);
            }
            assertThat(readCommitted(bootstrap, lost, Duration.ofSeconds(1))).isEmpty();

            try (TransactionWatch watch = new TransactionWatch(client, "lost-markers", bootstrap,
                    List.of(lost.topic(), kept.topic()), Duration.ofMinutes(15), id -> id.startsWith("app-"),
                    true)) {
                List<OpenTransaction> settled = watch.check();

                assertThat(settled).singleElement().satisfies(transaction ->
                        assertThat(transaction.topic() + "-" + transaction.partition()).isEqualTo("lost-0"));
                assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(
                        "cognition.health:type=transactions,application-id=lost-markers"), "settled-transactions"))
                        .isEqualTo(1);
                assertThat(readCommitted(bootstrap, lost, Duration.ofSeconds(20)))
                        .containsExactly("committed-on-lost");
                assertThat(readCommitted(bootstrap, kept, Duration.ofSeconds(5))).containsExactly("committed-on-kept");
                assertThat(watch.check()).as("nothing open any more").isEmpty();
            }
        }
    }

    private static void awaitLeaderless(Admin admin, TopicPartition partition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            TopicDescription described = admin.describeTopics(List.of(partition.topic())).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(partition.topic());
            var leader = described.partitions().get(partition.partition()).leader();
            if (leader == null || leader.isEmpty()) {
                return;
            }
            assertThat(System.nanoTime()).as(partition + " without a leader").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private static KafkaProducer<String, String> transactional(String bootstrap) {
        KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "app-model-worker-lost-markers",
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 120_000), new StringSerializer(), new StringSerializer());
        producer.initTransactions();
        return producer;
    }

    /** What a read_committed reader of the partition gets within {@code wait}. */
    private static List<String> readCommitted(String bootstrap, TopicPartition partition, Duration wait) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(),
                new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + wait.toNanos();
            while (values.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
            }
        }
        return values;
    }
}
