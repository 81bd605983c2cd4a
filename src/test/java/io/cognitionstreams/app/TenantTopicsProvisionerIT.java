package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topics;

/**
 * Topics read in the same tasks as another ({@code Topics.partitionedLike}) on a cluster the app already uses: a
 * tenant's requests beside cognition.requests, the council's decisions by session beside tool.calls.
 */
@ExtendWith(IsolatedBroker.class)
class TenantTopicsProvisionerIT {

    @Test
    void aTenantAddedLaterGetsAsManyRequestsPartitionsAsCognitionRequestsHas(EmbeddedKafkaBroker broker)
            throws Exception {
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            TopicProvisioner.ensure(admin, new Topics(new SingleObjectAvroSerdeFactory()), 2, (short) 1);

            // Started again with a tenant and, by mistake or on purpose, another partition count.
            List<String> created = TopicProvisioner.ensure(admin, new Topics(new SingleObjectAvroSerdeFactory(),
                    OutputLimits.defaults(), List.of("acme")), 4, (short) 1);

            assertThat(created).containsExactlyInAnyOrder("cognition.requests.acme", "channel.acme.cli_chat",
                    "channel.acme.web_chat", "channel.acme.discord_chat", "channel.acme.cli_chat.stream",
                    "channel.acme.web_chat.stream", "channel.acme.discord_chat.stream");
            Map<String, TopicDescription> described = admin.describeTopics(created).allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            assertThat(described.get("cognition.requests.acme").partitions())
                    .as("as many as cognition.requests, so its records meet their sessions' state").hasSize(2);
            assertThat(described.get("channel.acme.cli_chat").partitions()).hasSize(4);
        }
    }

    @Test
    void councilDecisionsBySessionGetsToolCallsPartitionsAndOtherCountsStopTheApp(EmbeddedKafkaBroker broker)
            throws Exception {
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            TopicProvisioner.ensure(admin, topics, 2, (short) 1);
            // A cluster of a version without the topic, started again with another partition count.
            delete(admin, Topics.COUNCIL_DECISIONS_BY_SESSION);
            assertThat(TopicProvisioner.ensure(admin, topics, 4, (short) 1))
                    .containsExactly(Topics.COUNCIL_DECISIONS_BY_SESSION);
            assertThat(admin.describeTopics(List.of(Topics.COUNCIL_DECISIONS_BY_SESSION)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(Topics.COUNCIL_DECISIONS_BY_SESSION).partitions())
                    .as("as many as tool.calls, so a decision reaches the task where its call waits").hasSize(2);

            delete(admin, Topics.COUNCIL_DECISIONS_BY_SESSION);
            admin.createTopics(List.of(new NewTopic(Topics.COUNCIL_DECISIONS_BY_SESSION, 3, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
            try {
                assertThatThrownBy(() -> TopicProvisioner.ensure(admin, topics, 2, (short) 1))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage(Topics.COUNCIL_DECISIONS_BY_SESSION + " has 3 partitions but tool.calls has 2: "
                                + "the app reads them in the same tasks, so they need as many (recreate "
                                + Topics.COUNCIL_DECISIONS_BY_SESSION + " with 2 partitions)");
            } finally {
                delete(admin, Topics.COUNCIL_DECISIONS_BY_SESSION);
                TopicProvisioner.ensure(admin, topics, 2, (short) 1);
            }
        }
    }

    private static void delete(Admin admin, String topic) throws Exception {
        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }
}
