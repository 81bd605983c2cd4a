package io.cognitionstreams.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.serde.AvroSerdes;

class TenantTopicsTest {

    private static final List<String> TENANTS = List.of("tenant-a", "tenant-b");
    private static final Topics TOPICS = new Topics(AvroSerdes.forRegistry(Optional.empty()), OutputLimits.defaults(),
            TENANTS);

    @Test
    void eachTenantHasARequestsTopicAndItsChatChannels() {
        assertThat(Topics.names(TENANTS)).contains("cognition.requests.tenant-a", "cognition.requests.tenant-b",
                "channel.tenant-a.cli_chat", "channel.tenant-a.web_chat", "channel.tenant-b.discord_chat")
                .doesNotContain("channel.tenant-a.council_chat", "channel.tenant-a.shell", "channel.tenant-a.memory")
                .containsAll(Topics.names(List.of()));
        assertThat(Topics.names(List.of())).noneMatch(name -> name.contains("tenant"));
        assertThat(TOPICS.tenantRequestTopics()).extracting(Topic::name)
                .containsExactly("cognition.requests.tenant-a", "cognition.requests.tenant-b");
    }

    @Test
    void aRequestsTopicNamesItsTenant() {
        assertThat(Topics.tenantOfRequests("cognition.requests.tenant-a")).contains("tenant-a");
        assertThat(Topics.tenantOfRequests(Topics.COGNITION_REQUESTS)).isEmpty();
        assertThat(Topics.tenantOfRequests("cognition.requests.")).isEmpty();
    }

    @Test
    void aClientThatKnowsNoTenantsFindsAnyTenantsTopicsByName() {
        Topics plain = new Topics(AvroSerdes.forRegistry(Optional.empty()));

        assertThat(plain.byName("cognition.requests.acme")).hasValueSatisfying(topic ->
                assertThat(topic.valueType()).isEqualTo(CognitionRequest.class));
        assertThat(plain.byName("channel.acme.cli_chat")).hasValueSatisfying(topic ->
                assertThat(topic.valueType()).isEqualTo(RoutedBlock.class));
        assertThat(plain.byName("channel.acme.council_chat")).isEmpty();
        assertThat(plain.byName("cognition.requests.acme.eu")).isEmpty();
        assertThat(plain.byName("channel.acme.eu.cli_chat")).isEmpty();
        assertThat(TOPICS.byName("cognition.requests.tenant-a")).contains(TOPICS.tenantRequestTopics().get(0));
    }

    @Test
    void aTenantSessionsChatBlockGoesToItsTenantsChannelAndEverythingElseToTheShared() {
        assertThat(TOPICS.channelTopicName(block("tenant-a.chat-1", Channel.CLI_CHAT)))
                .isEqualTo("channel.tenant-a.cli_chat");
        assertThat(TOPICS.channelTopicName(block("tenant-b.chat-1", Channel.WEB_CHAT)))
                .isEqualTo("channel.tenant-b.web_chat");
        assertThat(TOPICS.channelTopicName(block("chat-1", Channel.CLI_CHAT))).isEqualTo("channel.cli_chat");
        assertThat(TOPICS.channelTopicName(block("tenant-c.chat-1", Channel.CLI_CHAT))).isEqualTo("channel.cli_chat");
        // Cross-tenant or app-only by design.
        assertThat(TOPICS.channelTopicName(block("tenant-a.chat-1", Channel.COUNCIL_CHAT)))
                .isEqualTo("channel.council_chat");
        assertThat(TOPICS.channelTopicName(block("tenant-a.chat-1", Channel.MEMORY))).isEqualTo("channel.memory");
        // Without configured tenants nothing is a tenant's.
        assertThat(new Topics(AvroSerdes.forRegistry(Optional.empty())).channelTopicName(
                block("tenant-a.chat-1", Channel.CLI_CHAT))).isEqualTo("channel.cli_chat");
    }

    private static RoutedBlock block(String session, Channel channel) {
        return RoutedBlock.newBuilder().setBlockId("o#0").setOutputId("o").setPacketId("p").setRequestId("r")
                .setSessionId(session).setMarker(Marker.RESPONSE).setSequence(0).setBlockCount(1).setChannel(channel.id())
                .setText("hi").setTimestamp(Instant.EPOCH).build();
    }
}
