package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topics;

/** A tenant's topics on a cluster the app already uses: assembly reads its requests in the same tasks. */
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
}
