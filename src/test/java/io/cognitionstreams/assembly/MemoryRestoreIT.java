package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * The memory index is filled by the global store's loader, so it is only as good as Kafka Streams' promise to
 * rebuild a global store through that loader: memories already on cognition.memory when an instance starts (a
 * restart, a new instance) must be searchable by its first packet.
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
        Kafka.send(bootstrap, topics.memory, block.getBlockId(), EpisodicMemory.remember(block,
                new EpisodicMemory.Source(Topics.channelTopic(Channel.MEMORY), 0, 0, Instant.now()),
                EmbeddingModel.miniLm(MiniLmEmbedder.shared())));

        try (CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, "it-memory-" + run,
                stateDir))) {
            runtime.awaitRunning(Duration.ofSeconds(90));
            String session = "ask-" + run;
            Kafka.send(bootstrap, topics.requests, session, Records.request(session,
                    "How long does restoring the " + run + " glacier archive take?").setRequestId("q-" + run)
                    .setMemoryScope("restore-" + run).setTimestamp(Instant.now()).build());

            List<CognitionPacket> packets = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getRequestId().equals("q-" + run), seen -> !seen.isEmpty(),
                    Duration.ofSeconds(90));
            assertThat(packets.get(0).getHeader().getContext()).contains("[RAG Knowledge]", text);
        }
    }
}
