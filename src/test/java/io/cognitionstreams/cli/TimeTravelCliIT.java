package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.MemoryProbe;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.timetravel.ReplayPlan;
import io.cognitionstreams.topics.Topics;

/**
 * `checkpoints`, `replay`, `fork` and `rewind` against a running instance. A three-turn session is replayed from
 * its first checkpoint: with the replay model every packet and every routed block is the same as the first run's,
 * ids aside. A fork rebuilds the same session under a new id, every record pointing back to its original packet.
 * The session works in a memory scope that holds a memory before it starts, which its turns recall, and that learns
 * more after it ends, which a live turn recalls; the replay and the fork search the scope as it was at each original
 * turn, so their packets are still the originals'. The turns' own transcripts have no VERIFY or THOUGHT_SEED block.
 */
@ExtendWith(SharedBroker.class)
class TimeTravelCliIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> PROMPTS = List.of("Triage the parser crash reported this morning.",
            "Clean up the disk on the build server.", "Triage the crash again with the new stack trace.");
    /** In the scope before the session: its turns recall it. */
    private static final String KNOWN = "the parser crash reproduced on an empty header line in build 812";
    /** One of the tenants a secured test broker has principals for, so its agent may send there. */
    private static final String TENANT = "tenant-a";
    /** Learnt after the session: a live turn recalls it, a replayed one must not. */
    private static final String LEARNT_LATER = "the parser crash reported this morning is fixed in build 813";

    @Test
    void aReplayGivesTheSamePacketsAndBlocksAndAForkPointsBackToItsOrigin(EmbeddedKafkaBroker broker,
                                                                         @TempDir Path stateDir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String session = "tt-" + run;
        Settings settings = Settings.local(bootstrap, "it-" + run, stateDir).withTenants(List.of(TENANT));
        try (CognitionRuntime runtime = Logins.start(settings)) {
            runtime.awaitRunning(TIMEOUT);
            Topics topics = runtime.topics();
            String scope = "team-" + run;
            remember(bootstrap, topics, "before-" + run, scope, KNOWN);
            RecordMetadata firstRequest = null;
            for (int turn = 1; turn <= PROMPTS.size(); turn++) {
                String requestId = session + "-r" + turn;
                // Named on the first turn only: the session keeps its scope.
                RecordMetadata sent = Kafka.send(bootstrap, topics.requests, session, Records.request(session,
                        PROMPTS.get(turn - 1)).setRequestId(requestId).setMemoryScope(turn == 1 ? scope : null)
                        .setTimestamp(Instant.now()).build());
                firstRequest = firstRequest == null ? sent : firstRequest;
                // An agent waits for the answer, and for the result of the call it made, before its next turn; so
                // does this session. Each prompt's answer has one EXECUTE, denied here (no skill is active).
                String packetId = Kafka.readUntil(bootstrap, topics.llmOutputs,
                        output -> output.getRequestId().equals(requestId), seen -> !seen.isEmpty(), TIMEOUT).get(0)
                        .getPacketId();
                Kafka.readUntil(bootstrap, topics.toolResults, result -> packetId.equals(result.getPacketId()),
                        seen -> !seen.isEmpty(), TIMEOUT);
            }
            Kafka.readUntil(bootstrap, topics.checkpoints, c -> c.getSessionId().equals(session),
                    seen -> seen.size() >= PROMPTS.size(), TIMEOUT);

            Cli checkpoints = Cli.run(Logins.cli(bootstrap, Principals.OPERATOR, "checkpoints",
                    "--session", session));
            assertThat(checkpoints.exitCode()).as(checkpoints.err()).isZero();
            List<String> rows = checkpoints.out().lines().skip(1).toList();
            assertThat(rows).hasSize(3);
            for (int turn = 0; turn < rows.size(); turn++) {
                assertThat(rows.get(turn)).containsPattern("^\\s+" + turn + "\\s+packet\\s+PLAN\\s+[0-9a-f]{8}"
                        + "\\s+main\\s+cognition\\.packets-\\d+@\\d+\\s+" + (3 * turn) + "\\s+0\\s+\\S+\\s+"
                        + session + "-r" + (turn + 1) + "$");
            }

            remember(bootstrap, topics, "after-" + run, scope, LEARNT_LATER);

            // Replay, fork and rewind act as the app (docs/security.md): they write its requests and move its groups.
            Cli replay = Cli.run(Logins.cli(bootstrap, Principals.APP, "replay", "--session", session, "--to", "0",
                    "--progress-every", "1"));
            assertThat(replay.exitCode()).as(replay.err()).isZero();
            assertThat(replay.err()).contains("replayed 1/3 requests", "replayed 2/3 requests");
            assertThat(replay.out()).contains("replayed 3 requests of session " + session + " from checkpoint 0");

            List<CognitionPacket> packets = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getSessionId().equals(session), seen -> seen.size() >= 6, TIMEOUT);
            List<CognitionPacket> originals = packets.subList(0, 3);
            List<CognitionPacket> replayed = packets.subList(3, 6);
            assertThat(replayed).allSatisfy(packet -> assertThat(ReplayPlan.isReplay(packet.getRequestId())).isTrue());
            assertThat(replayed).extracting(packet -> packet.getMeta().getParentId())
                    .containsExactlyElementsOf(originals.stream().map(p -> p.getMeta().getPacketId()).toList());
            assertThat(originals.get(0).getHeader().getContext()).contains(KNOWN).doesNotContain(LEARNT_LATER);
            assertThat(originals).extracting(packet -> packet.getMeta().getMemoryScope()).containsOnly(scope);
            assertThat(replayed.stream().map(TimeTravelCliIT::idsAside).toList())
                    .as("the same packets, recalling what the scope held then and nothing learnt since")
                    .isEqualTo(originals.stream().map(TimeTravelCliIT::idsAside).toList());
            assertThat(replayed).extracting(packet -> packet.getMeta().getTimeTravel()).containsOnly(TimeTravel.REPLAY);
            // The replayed turns' calls point at the originals' calls, and are answered, never executed.
            List<ToolCall> calls = Kafka.readUntil(bootstrap, topics.toolCalls, call -> call.getSessionId()
                    .equals(session), seen -> seen.size() >= 6, TIMEOUT);
            assertThat(calls.subList(3, 6)).extracting(ToolCall::getParentId)
                    .containsExactlyElementsOf(calls.subList(0, 3).stream().map(ToolCall::getCallId).toList());
            assertThat(calls.subList(3, 6)).extracting(ToolCall::getTimeTravel).containsOnly(TimeTravel.REPLAY);
            assertThat(Kafka.readUntil(bootstrap, topics.toolResults, result -> result.getSessionId().equals(session)
                    && result.getTimeTravel() == TimeTravel.REPLAY, seen -> seen.size() >= 3, TIMEOUT))
                    .as("a result for each replayed call").hasSize(3);
            // Each output's last block goes to cli_chat; once all six are there, every channel has its blocks.
            Kafka.readUntil(bootstrap, topics.channel(Channel.CLI_CHAT), block -> block.getSessionId().equals(session),
                    seen -> lastBlocks(seen) >= 6, TIMEOUT);
            for (Channel channel : List.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.COUNCIL_CHAT)) {
                List<RoutedBlock> blocks = Kafka.readUntil(bootstrap, topics.channel(channel),
                        block -> block.getSessionId().equals(session), TimeTravelCliIT::asManyReplayedAsFirst,
                        TIMEOUT);
                assertThat(blocks.stream().filter(TimeTravelCliIT::isReplay).map(TimeTravelCliIT::idsAside).toList())
                        .as("%s blocks of the replay", channel).isEqualTo(blocks.stream()
                                .filter(block -> !isReplay(block)).map(TimeTravelCliIT::idsAside).toList());
            }

            Cli fork = Cli.run(Logins.cli(bootstrap, Principals.APP, "fork", "--session", session, "--from", "1",
                    "--turn-timeout", "30s"));
            assertThat(fork.exitCode()).as(fork.err()).isZero();
            String forked = session + "~fork-1";
            assertThat(fork.out()).contains("forked session " + session + " at checkpoint 1 into " + forked
                    + ": 1 requests rebuild its history, 2 run again from the checkpoint");
            List<CognitionPacket> forkPackets = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getSessionId().equals(forked), seen -> seen.size() >= 3, TIMEOUT);
            assertThat(forkPackets).extracting(packet -> packet.getMeta().getParentId())
                    .containsExactlyElementsOf(originals.stream().map(p -> p.getMeta().getPacketId()).toList());
            assertThat(forkPackets).extracting(packet -> packet.getMeta().getTimeTravel())
                    .as("no tool of a fork runs without --execute-tools").containsOnly(TimeTravel.FORK);
            assertThat(forkPackets.stream().map(p -> callIdsAside(CognitionPacket.newBuilder(p)
                    .setSessionId(session).build())).toList()).as("the fork rebuilt the same history turn by turn")
                    .isEqualTo(originals.stream().map(TimeTravelCliIT::callIdsAside).toList());
            List<RoutedBlock> forkBlocks = Kafka.readUntil(bootstrap, topics.channel(Channel.CLI_CHAT),
                    block -> block.getSessionId().equals(forked), seen -> lastBlocks(seen) >= 3, TIMEOUT);
            assertThat(forkBlocks).allSatisfy(block -> assertThat(block.getParentId())
                    .isIn(originals.stream().map(p -> p.getMeta().getPacketId()).toList()));
            assertThat(Kafka.readUntil(bootstrap, topics.llmOutputs, o -> o.getSessionId().equals(session),
                    seen -> seen.size() >= 6, TIMEOUT)).as("the original session is not touched by the fork")
                    .extracting(LlmOutput::getRequestId).noneMatch(id -> id.contains(forked));

            // A tenant's session: its original is on the tenant's own topic, sent by the tenant's agent.
            String tenantSession = TENANT + ".tt-" + run;
            Kafka.send(Logins.as(bootstrap, Principals.agent(TENANT)), topics.tenantRequestTopics().get(0),
                    tenantSession, Records.request(tenantSession, PROMPTS.get(0)).setRequestId(tenantSession + "-r1")
                            .setTimestamp(Instant.now()).build());
            Kafka.readUntil(bootstrap, topics.checkpoints, c -> c.getSessionId().equals(tenantSession),
                    seen -> !seen.isEmpty(), TIMEOUT);
            Cli tenantReplay = Cli.run(Logins.cli(bootstrap, Principals.APP, "replay", "--session", tenantSession,
                    "--to", "0"));
            assertThat(tenantReplay.exitCode()).as(tenantReplay.err()).isZero();
            assertThat(tenantReplay.out()).contains("replayed 1 request of session " + tenantSession);
            List<CognitionPacket> tenantPackets = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getSessionId().equals(tenantSession), seen -> seen.size() >= 2, TIMEOUT);
            assertThat(tenantPackets.get(1).getMeta().getParentId())
                    .isEqualTo(tenantPackets.get(0).getMeta().getPacketId());
            assertThat(idsAside(tenantPackets.get(1))).isEqualTo(idsAside(tenantPackets.get(0)));

            Cli active = Cli.run(Logins.cli(bootstrap, Principals.APP, "rewind", "--group",
                    settings.applicationId() + "-model-worker", "--to-time", Instant.now().toString()));
            assertThat(active.exitCode()).isEqualTo(1);
            assertThat(active.err()).contains("is active").contains("stop its consumers before rewinding it");

            // Under the app's prefix: on a secured broker the app may only move groups of its own.
            String group = settings.applicationId() + "-rewind";
            commitEndOffsets(bootstrap, group, Topics.COGNITION_REQUESTS);
            Instant to = Instant.ofEpochMilli(firstRequest.timestamp());
            Cli rewind = Cli.run(Logins.cli(bootstrap, Principals.APP, "rewind", "--group", group, "--to-time",
                    to.toString(), "--topic", Topics.COGNITION_REQUESTS));
            assertThat(rewind.exitCode()).as(rewind.err()).isZero();
            assertThat(rewind.out()).contains("rewound consumer group " + group + " to " + to + " on 3 partitions");
            try (Admin admin = Admin.create(Logins.as(bootstrap, Principals.APP))) {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get();
                TopicPartition sessionPartition = new TopicPartition(firstRequest.topic(), firstRequest.partition());
                assertThat(offsets.get(sessionPartition).offset()).isLessThanOrEqualTo(firstRequest.offset());
            }
        }
    }

    /**
     * Writes {@code text} to channel.memory in {@code scope}, as routing would a VERIFY of another session, and asks
     * in the scope until a live turn recalls it: then the running instance holds it.
     */
    private static void remember(String bootstrap, Topics topics, String writer, String scope, String text)
            throws InterruptedException {
        // Only the app writes channels on a secured broker.
        Kafka.send(Logins.as(bootstrap, Principals.APP), topics.channel(Channel.MEMORY), writer,
                Records.memoryBlock(writer + "#0", writer, text + ".").setMemoryScope(scope).setTimestamp(Instant.now())
                        .build());
        MemoryProbe.untilRecalled(bootstrap, topics, writer + "-asks", scope, PROMPTS.get(0), text, TIMEOUT);
    }

    /** What must be equal between a first run and its replay: everything but ids, lineage and when. */
    private static CognitionPacket idsAside(CognitionPacket packet) {
        CognitionPacket.Builder copy = CognitionPacket.newBuilder(packet).setRequestId("");
        // Lineage aside: ids and the time_travel mark differ by design, everything the model sees must not.
        copy.getMetaBuilder().setPacketId("").setParentId(null).setTimeTravel(null).setOriginSessionId(null);
        return copy.build();
    }

    /**
     * A fork's calls have the fork's own ids (derived from its packets), so its tool messages answer those and name
     * them in their text, whose token count then differs by the ids' lengths.
     */
    private static CognitionPacket callIdsAside(CognitionPacket packet) {
        CognitionPacket.Builder copy = CognitionPacket.newBuilder(idsAside(packet)).setTotalTokens(0);
        copy.getPayloadBuilder().setHistory(packet.getPayload().getHistory().stream()
                .map(message -> message.getToolCallId() == null ? message : ChatMessage.newBuilder(message)
                        .setToolCallId("").setTokenCount(0)
                        .setContent(message.getContent().replace(message.getToolCallId(), "")).build()).toList());
        Map<String, Integer> fields = new java.util.HashMap<>(packet.getFieldTokens());
        fields.remove("history");
        return copy.setFieldTokens(fields).build();
    }

    private static RoutedBlock idsAside(RoutedBlock block) {
        return RoutedBlock.newBuilder(block).setBlockId("").setOutputId("").setPacketId("").setParentId(null)
                .setTimeTravel(null).setOriginSessionId(null).setRequestId("").setTimestamp(Instant.EPOCH).build();
    }

    private static boolean isReplay(RoutedBlock block) {
        return ReplayPlan.isReplay(block.getRequestId());
    }

    private static long lastBlocks(List<RoutedBlock> blocks) {
        return blocks.stream().filter(b -> b.getSequence() == b.getBlockCount() - 1).count();
    }

    private static boolean asManyReplayedAsFirst(List<RoutedBlock> blocks) {
        long replayed = blocks.stream().filter(TimeTravelCliIT::isReplay).count();
        return replayed > 0 && replayed * 2 == blocks.size();
    }

    private static void commitEndOffsets(String bootstrap, String group, String topic) {
        Map<String, Object> config = Logins.as(bootstrap, Principals.APP);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
            partitions.forEach(partition -> ends.put(partition, new OffsetAndMetadata(consumer.position(partition))));
            consumer.commitSync(ends);
        }
    }
}
