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
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.MemoryProbe;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * Two tenants on one running instance. Tenant A's research turn goes through the whole pipeline (packet, replay
 * model, routing), and its THOUGHT_SEED and VERIFY blocks become memories of A's scope; tenant B's memory is written
 * on channel.memory as any producer may. Each tenant's sessions recall their own scope's memory and never the
 * other's, and a session that names no scope recalls neither.
 */
@ExtendWith(SharedBroker.class)
class MemoryScopeIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String A_MEMORY = "a reproducibility checklist could be a reusable skill";
    private static final String B_MEMORY = "tenant B keeps its reproducibility checklist in the release wiki";
    /** Answered by the bug-triage transcript, which has no memory block: asking adds no memory to the scope. */
    private static final String QUESTION = "Triage the bug: our reproducibility checklist skill fails to load.";

    @Test
    void twoScopesNeverSeeEachOthersMemories(EmbeddedKafkaBroker broker, @TempDir Path stateDir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String tenantA = "tenant-a-" + run;
        String tenantB = "tenant-b-" + run;
        try (CognitionRuntime runtime = Logins.start(Settings.local(bootstrap, "it-scope-" + run,
                stateDir))) {
            runtime.awaitRunning(TIMEOUT);
            Topics topics = runtime.topics();
            String researcher = "a1-" + run;
            Kafka.send(bootstrap, topics.requests, researcher, Records.request(researcher,
                    "Research and compare the evaluation setups of three papers.").setMemoryScope(tenantA)
                    .setTimestamp(Instant.now()).build());
            List<MemoryEntry> remembered = Kafka.readUntil(bootstrap, topics.memory,
                    entry -> entry.getSessionId().equals(researcher), seen -> seen.size() >= 2, TIMEOUT);
            assertThat(remembered).extracting(MemoryEntry::getMarker)
                    .containsExactlyInAnyOrder(Marker.THOUGHT_SEED, Marker.VERIFY);
            assertThat(remembered).extracting(MemoryEntry::getScope).as("the scope travelled with the turn")
                    .containsOnly(tenantA);
            String writer = "b0-" + run;
            // Only the app writes channels on a secured broker.
            Kafka.send(Logins.as(bootstrap, Principals.APP), topics.channel(Channel.MEMORY), writer, Records.memoryBlock(writer + "#0", writer,
                    B_MEMORY + ".").setMarker(Marker.THOUGHT_SEED).setTimestamp(Instant.now()).setMemoryScope(tenantB)
                    .build());

            // Asked until each tenant's memory is in this instance's global store; never a glimpse of the other's.
            String contextA = recalled(bootstrap, topics, "a2-" + run, tenantA, A_MEMORY, B_MEMORY);
            String contextB = recalled(bootstrap, topics, "b2-" + run, tenantB, B_MEMORY, A_MEMORY);
            assertThat(contextA).contains("[RAG Knowledge]");
            assertThat(contextB).contains("[RAG Knowledge]");

            String loner = "loner-" + run;
            Kafka.send(bootstrap, topics.requests, loner, Records.request(loner, QUESTION)
                    .setTimestamp(Instant.now()).build());
            CognitionPacket lonely = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getSessionId().equals(loner), seen -> !seen.isEmpty(), TIMEOUT).get(0);
            assertThat(lonely.getMeta().getMemoryScope()).isEqualTo("session/" + loner);
            assertThat(lonely.getHeader().getContext()).doesNotContain(A_MEMORY, B_MEMORY);
        }
    }

    /** The context of the first packet of {@code session} (in {@code scope}) that recalls {@code own}. */
    private static String recalled(String bootstrap, Topics topics, String session, String scope, String own,
                                   String foreign) throws InterruptedException {
        return MemoryProbe.until(bootstrap, topics, session, scope, QUESTION, TIMEOUT, packet -> {
            assertThat(packet.getMeta().getMemoryScope()).isEqualTo(scope);
            assertThat(packet.getHeader().getContext()).as("a packet of %s", scope).doesNotContain(foreign);
            return packet.getHeader().getContext().contains(own);
        }).getHeader().getContext();
    }
}
