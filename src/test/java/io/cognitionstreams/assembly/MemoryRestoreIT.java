package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.ToolSpec;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * Memories already on cognition.memory when an instance starts must be searchable by its first packet, including an
 * entry as versions before memory was partitioned by owner wrote it: its vector as an array of floats, in the
 * partition of its key rather than its scope's. The assembly moves it to its owner's partition and keeps it there,
 * and a session on any partition recalls it. The same first packet shows the skill and tool that were on their
 * topics: the assembly reads them from views its global stores fill as they load, on every start.
 */
@ExtendWith(SharedBroker.class)
class MemoryRestoreIT {

    @Test
    void memoriesOnTheTopicBeforeStartAreSearchableFromTheFirstPacket(EmbeddedKafkaBroker broker,
                                                                       @TempDir Path stateDir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String text = "VERIFY: the " + run + " glacier archive restored in nine minutes.";
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        RoutedBlock block = RoutedBlock.newBuilder().setBlockId("restore-" + run).setOutputId("o").setPacketId("p")
                .setRequestId("r").setSessionId("s-" + run).setMarker(Marker.VERIFY).setSequence(0)
                .setBlockCount(1).setChannel("memory").setText(text).setTimestamp(Instant.now())
                .setMemoryScope("restore-" + run).build();
        MemoryEntry entry = EpisodicMemory.remember(block, new EpisodicMemory.Source(
                Topics.channelTopic(Channel.MEMORY), 0, 0, Instant.now()), EmbeddingModel.miniLm(MiniLmEmbedder.shared()));
        List<Float> floats = new ArrayList<>();
        for (float value : MemoryEntries.vector(entry)) {
            floats.add(value);
        }
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            TopicProvisioner.ensure(admin, topics, 3, (short) 1);
        }
        String server = "restore" + run.replaceAll("[^a-z0-9]", "");
        Kafka.send(bootstrap, topics.skills, server, Skill.newBuilder().setName(server).setVersion("1.0.0")
                .setDescription("restores archives").setPermissions(List.of(server + ":*"))
                .setProtocol("Check the " + run + " checksum first.").setTimestamp(Instant.now()).build());
        Kafka.send(bootstrap, topics.tools, "mcp__" + server + "__restore", ToolDescriptor.newBuilder()
                .setName("mcp__" + server + "__restore").setServer(server).setTool("restore")
                .setDescription("Restores an archive").setExecutor("it").setTimestamp(Instant.now()).build());
        // Keyed and so partitioned by block id, as the app wrote it then.
        Kafka.send(bootstrap, topics.memory, block.getBlockId(), MemoryEntry.newBuilder(entry).setVectorInt8(null)
                .setEmbedding(floats).build());

        try (CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, "it-memory-" + run,
                stateDir))) {
            runtime.awaitRunning(Duration.ofSeconds(90));
            String session = "ask-" + run;
            Kafka.send(bootstrap, topics.requests, session, Records.request(session,
                    "How long does restoring the " + run + " glacier archive take?").setRequestId("q-" + run)
                    .setMemoryScope("restore-" + run).setActiveSkill(server).setTimestamp(Instant.now()).build());

            List<CognitionPacket> packets = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getRequestId().equals("q-" + run), seen -> !seen.isEmpty(),
                    Duration.ofSeconds(90));
            assertThat(packets.get(0).getHeader().getContext()).contains("[RAG Knowledge]", text,
                    "Check the " + run + " checksum first.", "- " + server + ": restores archives");
            assertThat(packets.get(0).getTools()).extracting(ToolSpec::getName)
                    .containsExactly("mcp__" + server + "__restore");
        }
    }
}
