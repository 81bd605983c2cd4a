package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.topics.Topics;

/**
 * `produce --tombstone` on a broker of its own, whose topics this test creates as it needs them: compacted as the
 * app makes them, missing, or made some other way.
 */
@ExtendWith(IsolatedBroker.class)
class ProduceTombstoneIT {

    @Test
    void aTombstoneGoesOnlyToATopicCompactedBothInTheCodeAndOnTheCluster(EmbeddedKafkaBroker broker)
            throws Exception {
        String bootstrap = broker.bootstrapServers();

        Cli uncompacted = Cli.run("produce", "--topic", Topics.COGNITION_REQUESTS, "--tombstone", "s1",
                "--bootstrap-servers", bootstrap);
        assertThat(uncompacted.exitCode()).isEqualTo(2);
        assertThat(uncompacted.err()).contains("cognition.requests is not a compacted topic, so a tombstone would "
                + "delete nothing; the compacted ones are [tool.ledger, cognition.tools, gatekeeper.sessions, session.usage, "
                + "council.state, council.keys, cognition.checkpoints, cognition.skills, cognition.identity, cognition.personas, "
                + "cognition.memory]");

        Cli missing = Cli.run("produce", "--topic", Topics.COGNITION_MEMORY, "--tombstone", "b1",
                "--bootstrap-servers", bootstrap);
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("topic cognition.memory does not exist on the cluster");

        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(Topics.COGNITION_MEMORY, 1, (short) 1).configs(Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE))))
                    .all().get(30, TimeUnit.SECONDS);
            TopicProvisioner.ensure(admin, new Topics(new SingleObjectAvroSerdeFactory()), 1, (short) 1);
        }
        Cli madeOtherwise = Cli.run("produce", "--topic", Topics.COGNITION_MEMORY, "--tombstone", "b1",
                "--bootstrap-servers", bootstrap);
        assertThat(madeOtherwise.exitCode()).isEqualTo(2);
        assertThat(madeOtherwise.err()).contains("cognition.memory has cleanup.policy=delete on the cluster, "
                + "not compact");

        Cli deleted = Cli.run("produce", "--topic", Topics.COGNITION_CHECKPOINTS, "--tombstone", "s1/0000000001",
                "--tombstone", "s1/0000000002", "--bootstrap-servers", bootstrap);
        assertThat(deleted.exitCode()).as(deleted.err()).isZero();
        assertThat(deleted.err()).contains("wrote 2 tombstones to cognition.checkpoints");
        List<ConsumerRecord<byte[], byte[]>> written = Kafka.readRaw(bootstrap, Topics.COGNITION_CHECKPOINTS);
        assertThat(written).extracting(record -> new String(record.key(), StandardCharsets.UTF_8))
                .containsExactly("s1/0000000001", "s1/0000000002");
        assertThat(written).extracting(ConsumerRecord::value).containsOnlyNulls();
        assertThat(Kafka.readRaw(bootstrap, Topics.COGNITION_MEMORY)).isEmpty();
    }

    @Test
    void tombstoneKeysComeFromTheCommandLineAlone() {
        Cli withFile = Cli.run("produce", "--topic", Topics.COGNITION_SKILLS, "--tombstone", "git", "--file", "x",
                "--bootstrap-servers", "127.0.0.1:1");

        assertThat(withFile.exitCode()).isEqualTo(2);
        assertThat(withFile.err()).contains("--tombstone takes its keys from the command line; it goes with "
                + "neither --file, --key nor --raw");
    }
}
