package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.governance.AuditTrail;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Hostile;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * An attacker's records on every topic the app reads, against `cognition run` on its embedded broker as a user
 * starts it: bad bytes and a length bomb (a value claiming 2 GiB) on each input, compacted ones and a tenant's
 * requests topic included, a request on the tenant's topic for a session not the tenant's, a
 * council heartbeat from a clock two hours ahead and one from year 9999, and an output of twenty thousand
 * blocks. Each must become exactly one dead letter naming where it came from, the good records after them must be
 * processed, and a restart on the same data directory must answer again without a second letter. On the way, a
 * hundred thousand heartbeats for one council and records stamped in 1971 must pass without a letter, within a
 * bounded memory.
 */
class HostileInputIT {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    /** Heartbeats for one council; {@code -Dhostile.flood=N} for another count. */
    private static final int FLOOD = Integer.getInteger("hostile.flood", 100_000);
    /** A tenant given on the command line, so its requests topic is an input like the others. */
    private static final String TENANT = "tenant-a";
    private static final Map<String, Class<? extends SpecificRecord>> INPUTS = new LinkedHashMap<>();

    static {
        INPUTS.put(Topics.COGNITION_REQUESTS, CognitionRequest.class);
        INPUTS.put(Topics.COGNITION_PACKETS, CognitionPacket.class);
        INPUTS.put(Topics.LLM_OUTPUTS, LlmOutput.class);
        INPUTS.put(Topics.TOOL_CALLS, ToolCall.class);
        INPUTS.put(Topics.TOOL_DECISIONS, ToolDecision.class);
        INPUTS.put(Topics.TOOL_OUTCOMES, ToolResult.class);
        INPUTS.put(Topics.TOOL_RESULTS, ToolResult.class);
        INPUTS.put(Topics.COGNITION_TOOLS, ToolDescriptor.class);
        INPUTS.put(Topics.SESSION_CONTROL, SessionControl.class);
        INPUTS.put(Topics.SESSION_IMPORTS, HistoryImport.class);
        INPUTS.put(Topics.COUNCIL_MESSAGES, CouncilMessage.class);
        INPUTS.put(Topics.COUNCIL_KEYS, CouncilKey.class);
        INPUTS.put(Topics.COGNITION_SKILLS, Skill.class);
        INPUTS.put(Topics.COGNITION_IDENTITY, Identity.class);
        INPUTS.put(Topics.COGNITION_PERSONAS, Persona.class);
        INPUTS.put(Topics.COGNITION_MEMORY, MemoryEntry.class);
        INPUTS.put(Topics.channelTopic(Channel.MEMORY), RoutedBlock.class);
        INPUTS.put(Topics.tenantRequests(TENANT), CognitionRequest.class);
    }

    private final Topics topics = Drivers.topics(List.of(TENANT));

    @TempDir
    Path dataDir;

    @Test
    void everyHostileRecordIsOneLetterTheRecordsAroundItFlowAndARestartAnswersAgain() throws Exception {
        int port = ChildApp.freePort();
        String bootstrap = "127.0.0.1:" + port;
        Path log = dataDir.resolve("app.log");
        List<String> run = List.of("--data-dir", dataDir.resolve("data").toString(), "--port", String.valueOf(port),
                "--controller-port", String.valueOf(ChildApp.freePort()), "--tenants", TENANT, "--approval", "never");
        ChildApp app = started(log, run);
        try {
            Set<String> hostile = new java.util.TreeSet<>();
            for (Map.Entry<String, Class<? extends SpecificRecord>> input : INPUTS.entrySet()) {
                hostile.add(origin(Kafka.send(bootstrap, input.getKey(), "hostile", Hostile.NOT_AVRO)));
                hostile.add(origin(Kafka.send(bootstrap, input.getKey(), "hostile",
                        Hostile.lengthBomb(input.getValue()))));
            }
            Instant now = Instant.now();
            hostile.add(origin(Kafka.send(bootstrap, topics.councilMessages, "default",
                    heartbeat("fast", now.plus(Duration.ofHours(2))))));
            hostile.add(origin(Kafka.send(bootstrap, topics.councilMessages, "default",
                    heartbeat("far", Instant.parse("9999-12-31T23:59:59Z")))));
            hostile.add(origin(Kafka.send(bootstrap, topics.llmOutputs, "flood",
                    Records.output("flood", "INTERRUPT: stop\n".repeat(20_000)).build())));
            // Well formed, but on the tenant's topic under a session that is not the tenant's.
            hostile.add(origin(Kafka.send(bootstrap, topics.tenantRequestTopics().get(0), "h1",
                    Records.request("h1", "Add a turn to a session not mine.").setTimestamp(now).build())));

            // The good records after them: each shows its input still flows.
            Kafka.send(bootstrap, topics.skills, "probe", Skill.newBuilder().setName("probe").setVersion("1.0.0")
                    .setPermissions(List.of("git:status")).setProtocol("Look, do not touch.").setTimestamp(now)
                    .build());
            Kafka.send(bootstrap, topics.identity, IdentityGovernance.KEY, Identity.newBuilder()
                    .setText("Be truthful; never run a command unapproved.").setVersion(7)
                    .setAuthors(List.of(IdentityGovernance.CREATOR)).setTimestamp(now).build());
            Kafka.send(bootstrap, topics.councilMessages, "default", heartbeat("on-time", now));
            Kafka.send(bootstrap, topics.toolCalls, "h1", ToolCall.newBuilder().setCallId("h1-call")
                    .setSessionId("h1").setCaller("probe").setSkill("probe").setTool("git:status")
                    .setArguments("{}").setTimestamp(now).build());
            Kafka.send(bootstrap, topics.requests, "h1", Records.request("h1", "Plan the deploy of release 2.4.0.")
                    .setActiveSkill("probe").setTimestamp(now).build());
            Kafka.send(bootstrap, topics.tenantRequestTopics().get(0), TENANT + ".h1", Records.request(TENANT
                    + ".h1", "Plan the deploy of release 2.4.1.").setTimestamp(now).build());

            // A flood of heartbeats for one council and records stamped long ago: no letter, nothing stops.
            long floodStart = System.nanoTime();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 20),
                    new ByteArraySerializer(), new ByteArraySerializer())) {
                byte[] council = "flooded".getBytes(StandardCharsets.UTF_8);
                for (int i = 0; i < FLOOD; i++) {
                    CouncilMessage beat = CouncilMessage.newBuilder(heartbeat("flood-" + i, Instant.now()))
                            .setCouncilId("flooded").build();
                    producer.send(new ProducerRecord<>(Topics.COUNCIL_MESSAGES, council,
                            topics.councilMessages.valueSerde().serializer().serialize(Topics.COUNCIL_MESSAGES, beat)));
                }
                Instant past = Instant.parse("1971-01-01T00:00:00Z");
                producer.send(new ProducerRecord<>(Topics.COUNCIL_MESSAGES, null, past.toEpochMilli(),
                        "default".getBytes(StandardCharsets.UTF_8), topics.councilMessages.valueSerde().serializer()
                        .serialize(Topics.COUNCIL_MESSAGES, heartbeat("past", past))));
                producer.send(new ProducerRecord<>(Topics.COGNITION_REQUESTS, null, past.toEpochMilli(),
                        "h0".getBytes(StandardCharsets.UTF_8), topics.requests.valueSerde().serializer()
                        .serialize(Topics.COGNITION_REQUESTS, Records.request("h0", "Triage the crash bug.")
                                .setTimestamp(past).build())));
            }
            assertAnswered(bootstrap, "h0");
            assertAnswered(bootstrap, "h1");
            Kafka.readUntil(bootstrap, topics.channel(TENANT, Channel.CLI_CHAT), block -> block.getSessionId()
                    .equals(TENANT + ".h1"), found -> !found.isEmpty(), TIMEOUT);
            Kafka.readUntil(bootstrap, topics.toolDecisions, decision -> decision.getCall().getCallId()
                    .equals("h1-call") && decision.getVerdict() == Verdict.APPROVED, found -> !found.isEmpty(),
                    TIMEOUT);
            Kafka.readUntil(bootstrap, topics.councilRoles, role -> role.getRole().equals("lite")
                    && role.getStatus() == RoleState.ACTIVE, found -> !found.isEmpty(), TIMEOUT);
            Kafka.readUntil(bootstrap, topics.events, event -> event.getType().equals(AuditTrail.EVENT)
                    && event.getMessage().contains("identity added at version 7"), found -> !found.isEmpty(),
                    TIMEOUT);
            List<DeadLetter> letters = Kafka.readUntil(bootstrap, topics.deadLetters,
                    letter -> hostile.contains(origin(letter)),
                    found -> found.stream().map(HostileInputIT::origin).collect(Collectors.toSet())
                            .containsAll(hostile), TIMEOUT);
            assertThat(letters).as("one letter per hostile record").hasSize(hostile.size());
            assertThat(letters).allSatisfy(letter -> assertThat(letter.getReason()).isNotBlank());
            assertThat(reasonsFrom(letters, Topics.COUNCIL_MESSAGES)).anyMatch(reason -> reason.contains(
                    "ahead of the clock")).filteredOn(reason -> reason.contains("ahead of the clock")).hasSize(2);
            assertThat(reasonsFrom(letters, Topics.LLM_OUTPUTS)).anyMatch(reason -> reason.contains(
                    "20000 blocks, over the limit of 256"));
            Kafka.readUntil(bootstrap, topics.councilRoles, role -> role.getCouncilId().equals("flooded"),
                    found -> !found.isEmpty(), TIMEOUT);
            Kafka.send(bootstrap, topics.councilMessages, "flooded", CouncilMessage.newBuilder(
                    heartbeat("after-flood", Instant.now())).setCouncilId("flooded").setSender("prime").build());
            Kafka.readUntil(bootstrap, topics.councilRoles, role -> role.getCouncilId().equals("flooded")
                    && role.getRole().equals("prime"), found -> !found.isEmpty(), TIMEOUT);
            System.out.printf("hostile input: %d heartbeats for one council handled in %.1f s; app peak RSS %d MiB%n",
                    FLOOD, (System.nanoTime() - floodStart) / 1e9, app.peakRssMib());
            assertThat(app.peakRssMib()).as("peak resident memory, MiB").isLessThan(1_536);
            assertThat(Files.readString(log)).doesNotContain("stream thread failed", "Global thread has died");
        } finally {
            app.stop();
        }

        ChildApp again = started(log, run);
        try {
            Kafka.send(bootstrap, topics.requests, "h2", Records.request("h2", "Triage the crash bug.")
                    .setActiveSkill("probe").setTimestamp(Instant.now()).build());
            assertAnswered(bootstrap, "h2");
            List<DeadLetter> all = Kafka.readAll(bootstrap, topics.deadLetters, letter -> true);
            assertThat(all.stream().map(HostileInputIT::origin).distinct().count()).as("no letter twice")
                    .isEqualTo(all.size());
        } finally {
            again.stop();
        }
    }

    private static ChildApp started(Path log, List<String> run) throws InterruptedException {
        ChildApp app = ChildApp.run(log, run);
        if (!app.awaitRunning(TIMEOUT)) {
            app.kill();
            throw new AssertionError("cognition run did not start; its log: " + readQuietly(log));
        }
        return app;
    }

    private void assertAnswered(String bootstrap, String session) {
        Topic<String, RoutedBlock> cli = topics.channel(Channel.CLI_CHAT);
        Kafka.readUntil(bootstrap, cli, block -> block.getSessionId().equals(session), found -> !found.isEmpty(),
                TIMEOUT);
    }

    private static List<String> reasonsFrom(List<DeadLetter> letters, String topic) {
        return letters.stream().filter(letter -> letter.getSourceTopic().equals(topic))
                .map(DeadLetter::getReason).toList();
    }

    private static CouncilMessage heartbeat(String id, Instant at) {
        return CouncilMessage.newBuilder().setMsgId(id).setCouncilId("default").setTimestamp(at).setSender("lite")
                .setRole("observer").setType(CouncilMessageType.HEARTBEAT).setRiskLevel(RiskLevel.LOW).build();
    }

    private static String origin(RecordMetadata sent) {
        return DeadLetters.key(sent.topic(), sent.partition(), sent.offset());
    }

    private static String origin(DeadLetter letter) {
        return DeadLetters.key(letter.getSourceTopic(), letter.getSourcePartition(), letter.getSourceOffset());
    }

    private static String readQuietly(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
