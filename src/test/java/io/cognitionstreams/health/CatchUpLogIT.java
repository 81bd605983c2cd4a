package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.testing.SharedBroker;

/**
 * On a real broker: a group's backlog is what a reader of committed records has yet to read past its committed
 * offsets, so an open transaction's records do not count until it commits.
 */
@ExtendWith(SharedBroker.class)
class CatchUpLogIT {

    @Test
    void aGroupsBacklogIsWhatItHasNotCommittedOfWhatIsCommitted(EmbeddedKafkaBroker broker) throws Exception {
        Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        String topic = "catch-up-" + UUID.randomUUID().toString().substring(0, 8);
        String group = "catch-up-app-assembly";
        try (Admin admin = Admin.create(client);
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                     ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic), new StringSerializer(), new StringSerializer())) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(2), Optional.empty()))).all()
                    .get(30, TimeUnit.SECONDS);
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "committed " + i));
            }
            producer.send(new ProducerRecord<>(topic, 1, "k", "committed"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 1, "k", "still open"));
            producer.flush();
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(2),
                    new TopicPartition(topic, 1), new OffsetAndMetadata(0))).all().get(30, TimeUnit.SECONDS);

            Backlog backlog = CatchUpLog.read(admin, CatchUpLog.named("catch-up-app", List.of(group)));

            // Offsets, so a commit marker counts: partition 0 has 3 records and its marker past offset 2, partition
            // 1 its committed record and marker before the open transaction.
            assertThat(backlog.byGroup()).isEqualTo(Map.of("assembly", Map.of(topic, 6L)));
            assertThat(backlog.describe()).isEqualTo("assembly 6 (" + topic + " 6)");
            producer.abortTransaction();
        }
    }

    @Test
    void theCatchUpCountsOnlyWhatWasThereAtTheStart(EmbeddedKafkaBroker broker) throws Exception {
        Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        String topic = "catch-up-" + UUID.randomUUID().toString().substring(0, 8);
        String group = "catch-up-app-routing";
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(client);
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
                     new StringSerializer())) {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty()))).all()
                    .get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "before the start " + i)).get();
            }
            // What the previous incarnation committed.
            commit(admin, group, partition, 1);

            CatchUpLog.Start start = CatchUpLog.Start.read(admin, CatchUpLog.named("catch-up-app", List.of(group,
                    "catch-up-app-never-ran")));
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "after the start " + i)).get();
            }
            commit(admin, group, partition, 3);
            assertThat(start.left(admin).byGroup()).isEqualTo(Map.of("routing", Map.of(topic, 2L)));
            commit(admin, group, partition, 7);
            assertThat(start.left(admin).total()).isZero();
        }
    }

    private static void commit(Admin admin, String group, TopicPartition partition, long offset) throws Exception {
        admin.alterConsumerGroupOffsets(group, Map.of(partition, new OffsetAndMetadata(offset))).all()
                .get(30, TimeUnit.SECONDS);
    }
}
