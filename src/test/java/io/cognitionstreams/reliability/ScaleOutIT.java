package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.LongStream;

import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Pipeline;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.assembly.AssemblyTopology;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.topics.Topics;

/**
 * Two instances with one application id share the partitions; one stops, and the other takes over its tasks,
 * restoring their state stores from the changelogs (no standby replicas, and its own state directory never held
 * them). A session's second turn answered by the survivor must still carry its first turn in its history.
 */
@ExtendWith(IsolatedBroker.class)
class ScaleOutIT {

    private static final int SESSIONS = 150;
    private static final int PARTITIONS = 3;
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @Test
    void theSurvivorTakesOverThePartitionsOfTheStoppedInstanceWithTheirState(EmbeddedKafkaBroker broker,
                                                                              @TempDir Path dir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = "scale-" + UUID.randomUUID().toString().substring(0, 8);
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        long[] firstTurns = turn(0);
        long[] secondTurns = turn(1);
        CognitionRuntime first = CognitionRuntime.start(Settings.local(bootstrap, run, dir.resolve("a")));
        try (CognitionRuntime second = CognitionRuntime.start(Settings.local(bootstrap, run, dir.resolve("b")));
             Ledger ledger = new Ledger(bootstrap, topics, run)) {
            first.awaitRunning(TIMEOUT);
            second.awaitRunning(TIMEOUT);
            Traffic.start(bootstrap, topics.requests, Workload.NO_MEMORY, run, firstTurns, 100).await();
            ledger.awaitComplete(Traffic.prompts(Workload.NO_MEMORY, run, firstTurns), TIMEOUT);

            Map<String, Set<String>> firstTasks = first.activeTasks();
            Map<String, Set<String>> allTasks = allTasks(topics);
            assertThat(firstTasks.get(AssemblyTopology.NAME)).as("the first instance's share").isNotEmpty();
            assertThat(second.activeTasks().get(AssemblyTopology.NAME)).as("the second's share").isNotEmpty();

            first.close();
            awaitTasks(second, allTasks);
            Traffic.start(bootstrap, topics.requests, Workload.NO_MEMORY, run, secondTurns, 100).await();
            Map<String, String> all = Traffic.prompts(Workload.NO_MEMORY, run, LongStream.concat(
                    LongStream.of(firstTurns), LongStream.of(secondTurns)).toArray());
            ledger.awaitComplete(all, TIMEOUT);
            second.close();
            ledger.catchUp();
            Ledger.Verdict verdict = ledger.verify(all);
            assertThat(verdict.ok()).as(verdict.toString()).isTrue();

            String sessionTasks = sessionSubtopology(topics) + "_";
            Set<String> moved = new TreeSet<>();
            for (CognitionPacket packet : secondTurnPackets(bootstrap, topics, run)) {
                String firstPrompt = Workload.NO_MEMORY.request(run, firstTurnOf(packet), java.time.Instant.EPOCH)
                        .getUserPrompt();
                assertThat(packet.getPayload().getHistory()).extracting(ChatMessage::getContent)
                        .as("history of %s", packet.getSessionId()).contains(firstPrompt);
                if (firstTasks.get(AssemblyTopology.NAME).contains(sessionTasks + partitionOf(packet.getSessionId()))) {
                    moved.add(packet.getSessionId());
                }
            }
            assertThat(moved).as("sessions whose state moved to the survivor").isNotEmpty();
        } finally {
            first.close();
        }
    }

    /** Request numbers of one turn of every session (Workload numbers turns within a session consecutively). */
    private static long[] turn(int turn) {
        return LongStream.range(0, SESSIONS).map(session -> session * Workload.TURNS_PER_SESSION + turn).toArray();
    }

    private static long firstTurnOf(CognitionPacket packet) {
        String request = packet.getRequestId();
        return Long.parseLong(request.substring(request.lastIndexOf('-') + 1)) - 1;
    }

    /** The assembly sub-topology whose tasks own the sessions' state stores. */
    private static int sessionSubtopology(Topics topics) {
        TopologyDescription description = Pipeline.topology(AssemblyTopology.NAME, topics, Pipeline.Parts.defaults())
                .describe();
        return description.subtopologies().stream()
                .filter(sub -> sub.nodes().stream().anyMatch(node -> node instanceof TopologyDescription.Processor p
                        && p.stores().contains(AssemblyTopology.SESSION_STORE)))
                .findFirst().orElseThrow().id();
    }

    /** The partition Kafka's default partitioner gives a session key. */
    private static int partitionOf(String session) {
        return Utils.toPositive(Utils.murmur2(session.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }

    private static List<CognitionPacket> secondTurnPackets(String bootstrap, Topics topics, String run) {
        Set<String> wanted = Traffic.prompts(Workload.NO_MEMORY, run, turn(1)).keySet();
        return Kafka.readUntil(bootstrap, topics.packets, packet -> wanted.contains(packet.getRequestId()),
                seen -> seen.size() >= SESSIONS, TIMEOUT);
    }

    /**
     * Every task of every capability: each sub-topology on each partition. Worked out from the topologies, not read
     * off the two instances, which may be between two rebalances of one capability when asked.
     */
    private static Map<String, Set<String>> allTasks(Topics topics) {
        Map<String, Set<String>> all = new HashMap<>();
        Pipeline.Parts parts = Pipeline.Parts.defaults();
        for (String capability : Pipeline.capabilities(parts).keySet()) {
            Set<String> tasks = new TreeSet<>();
            for (TopologyDescription.Subtopology sub : Pipeline.topology(capability, topics, parts).describe()
                    .subtopologies()) {
                for (int partition = 0; partition < PARTITIONS; partition++) {
                    tasks.add(sub.id() + "_" + partition);
                }
            }
            all.put(capability, tasks);
        }
        return all;
    }

    private static void awaitTasks(CognitionRuntime runtime, Map<String, Set<String>> tasks) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!runtime.activeTasks().equals(tasks)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the survivor holds " + runtime.activeTasks() + ", not " + tasks);
            }
            Thread.sleep(200);
        }
        runtime.awaitRunning(TIMEOUT);
    }
}
