package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.skills.SkillFiles;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.timetravel.Checkpoints;
import io.cognitionstreams.timetravel.ReplayPlan;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Every record a replayed or forked turn produces points back to its original: a session whose turns call a real
 * MCP tool (run by the executor), make a denied shell call, and fail a Verify stage once (an AutoFix retry, its
 * events, a verified checkpoint, memories) is replayed, forked, and forked with --execute-tools; then every topic
 * the app has is read from the start, and each record of the re-runs must carry time_travel, a parent_id that leads
 * back to a record of the original session, and the original session as origin_session_id. A broker of its own:
 * the walk reads every topic whole.
 */
@ExtendWith(IsolatedBroker.class)
class TimeTravelLineageIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    /** Topics where each re-run must have left records, so that the walk cannot pass by finding nothing. */
    private static final Set<String> EXPECTED = Set.of(Topics.COGNITION_REQUESTS, Topics.COGNITION_PACKETS,
            Topics.LLM_OUTPUTS, Topics.TOOL_CALLS, Topics.TOOL_DECISIONS, Topics.TOOL_RESULTS,
            Topics.COGNITION_CHECKPOINTS, Topics.COGNITION_EVENTS, Topics.COGNITION_MEMORY, "channel.cli_chat",
            "channel.web_chat", "channel.council_chat", "channel.memory");
    /** And, for the fork that runs its tools, what running them writes. */
    private static final Set<String> EXECUTED = Set.of(Topics.TOOL_OUTCOMES, Topics.TOOL_LEDGER);

    @Test
    void everyRecordOfAReplayAndOfAForkPointsBackToItsOriginal(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String session = "lineage-" + run;
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        Files.writeString(workspace.resolve("notes.txt"), "hello");
        Settings settings = Settings.local(bootstrap, "lineage-" + run, dir.resolve("state"))
                .withExecutor(new ExecutorSettings(List.of(WorkspaceServer.demoConfig(workspace)),
                        ExecutorSettings.DEFAULT_CALL_TIMEOUT, 2, ExecutorSettings.DEFAULT_MAX_RESULT_BYTES,
                        Optional.empty(), List.of(), 0, Optional.empty()));
        try (CognitionRuntime runtime = CognitionRuntime.start(settings,
                SkillFiles.load(Path.of("skills"), Instant.now()))) {
            runtime.awaitRunning(TIMEOUT);
            Topics topics = runtime.topics();

            // An MCP call the executor runs; a shell call denied (no skill), with an e-mail address to redact; a
            // Verify that fails once and passes on its AutoFix retry.
            turn(bootstrap, topics, Records.request(session, "Inspect the workspace and tell me what is in it.")
                    .setRequestId(session + "-r1").setActiveSkill("inspector").setPersona("developer"), true);
            turn(bootstrap, topics, Records.request(session, "Triage the parser crash reported this morning.")
                    .setRequestId(session + "-r2"), true);
            turn(bootstrap, topics, Records.request(session, "Verify the canary of build 2.4.1.")
                    .setRequestId(session + "-r3").setPersona("developer").setTaskInstructionKey("verification"),
                    false);
            awaitVerified(bootstrap, topics, session, null);
            awaitQuiet(bootstrap, topics);
            Map<TopicPartition, Long> beforeReplay = ends(bootstrap, topics);
            Originals originals = originals(bootstrap, topics, session);

            Cli replay = Cli.run("replay", "--session", session, "--to", "0", "--bootstrap-servers", bootstrap);
            assertThat(replay.exitCode()).as(replay.err()).isZero();
            awaitVerified(bootstrap, topics, session, TimeTravel.REPLAY);
            String fork = ReplayPlan.forkSession(session, 0);
            Cli forked = Cli.run("fork", "--session", session, "--from", "0", "--bootstrap-servers", bootstrap,
                    "--turn-timeout", "60s");
            assertThat(forked.exitCode()).as(forked.err()).isZero();
            String executing = session + "~exec";
            Cli executed = Cli.run("fork", "--session", session, "--from", "0", "--as", executing,
                    "--execute-tools", "--bootstrap-servers", bootstrap, "--turn-timeout", "60s");
            assertThat(executed.exitCode()).as(executed.err()).isZero();
            awaitVerified(bootstrap, topics, fork, TimeTravel.FORK);
            awaitVerified(bootstrap, topics, executing, TimeTravel.FORK_EXECUTE);
            awaitQuiet(bootstrap, topics);

            // The tool ran for the original and for the fork that was asked to run it, nowhere else.
            List<ToolResult> runs = Kafka.readAll(bootstrap, topics.toolOutcomes,
                    outcome -> "mcp:workspace".equals(outcome.getExecutor()));
            assertThat(runs).extracting(ToolResult::getSessionId).containsExactlyInAnyOrder(session, executing);
            ToolResult replayedResult = Kafka.readAll(bootstrap, topics.toolResults, result -> session.equals(
                    result.getSessionId()) && result.getTimeTravel() == TimeTravel.REPLAY
                    && result.getTool().equals("mcp__workspace__list_files")).get(0);
            assertThat(replayedResult.getText()).as("the replay's answer is the original's recorded result")
                    .isEqualTo(originals.listing()).contains("notes.txt");
            assertThat(Kafka.readAll(bootstrap, topics.toolResults, result -> fork.equals(result.getSessionId())
                    && result.getTool().equals("mcp__workspace__list_files")))
                    .extracting(ToolResult::getStatus).containsExactly(ToolStatus.NOT_EXECUTED);

            Map<String, String> rerunParents = rerunParents(bootstrap, topics, Set.of(session, fork, executing));
            Map<String, Set<String>> walked = new HashMap<>();
            List<String> broken = new ArrayList<>();
            for (Topic<?, ?> topic : topics.all()) {
                walk(bootstrap, topic, (position, record) -> {
                    Optional<String> owner = session(record);
                    String rerun = owner.filter(s -> s.equals(fork) || s.equals(executing)).orElse(
                            owner.filter(session::equals).filter(s -> position.offset()
                                    >= beforeReplay.getOrDefault(position.partition(), 0L)).orElse(null));
                    if (rerun == null) {
                        return;
                    }
                    walked.computeIfAbsent(rerun, s -> new TreeSet<>()).add(topic.name());
                    pointsBack(record, session, originals, rerunParents)
                            .ifPresent(problem -> broken.add(position + " " + problem + ": "
                                    + record.toString().substring(0, Math.min(300, record.toString().length()))));
                });
            }
            assertThat(broken).as("records of the re-runs that do not point back to their original").isEmpty();
            assertThat(walked.get(session)).as("the replay's records").containsAll(EXPECTED);
            assertThat(walked.get(fork)).as("the fork's records").containsAll(EXPECTED);
            assertThat(walked.get(executing)).as("the executing fork's records").containsAll(EXPECTED)
                    .containsAll(EXECUTED);
            assertThat(Kafka.readAll(bootstrap, topics.deadLetters, letter -> true)).as("nothing refused").isEmpty();
        }
    }

    /** Sends a turn and waits for its answer and, when it calls a tool, for the call's result. */
    private static void turn(String bootstrap, Topics topics, CognitionRequest.Builder request, boolean callsATool) {
        CognitionRequest sent = request.setTimestamp(Instant.now()).build();
        Kafka.send(bootstrap, topics.requests, sent.getSessionId(), sent);
        String packet = Kafka.readUntil(bootstrap, topics.llmOutputs,
                output -> output.getRequestId().equals(sent.getRequestId()), seen -> !seen.isEmpty(), TIMEOUT).get(0)
                .getPacketId();
        if (callsATool) {
            Kafka.readUntil(bootstrap, topics.toolResults, result -> packet.equals(result.getPacketId()),
                    seen -> !seen.isEmpty(), TIMEOUT);
        }
    }

    /** The session's Verify passed (on its retry): the last step of each run of it. */
    private static void awaitVerified(String bootstrap, Topics topics, String session, TimeTravel timeTravel) {
        Kafka.readUntil(bootstrap, topics.checkpoints, checkpoint -> checkpoint != null
                && session.equals(checkpoint.getSessionId()) && Checkpoints.isVerified(checkpoint)
                && checkpoint.getTimeTravel() == timeTravel, seen -> !seen.isEmpty(), TIMEOUT);
    }

    /** No topic of the app grew for three seconds: what the re-runs lead to (memories, events) is all written. */
    private static void awaitQuiet(String bootstrap, Topics topics) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        Map<TopicPartition, Long> last = ends(bootstrap, topics);
        while (System.nanoTime() < deadline) {
            Thread.sleep(3000);
            Map<TopicPartition, Long> now = ends(bootstrap, topics);
            if (now.equals(last)) {
                return;
            }
            last = now;
        }
        throw new AssertionError("the app kept writing for " + TIMEOUT);
    }

    /** What the original session's records are known by: its packets, its calls, and its listing. */
    private record Originals(Set<String> packets, Set<String> calls, String listing) {
    }

    private static Originals originals(String bootstrap, Topics topics, String session) {
        Set<String> packets = new HashSet<>();
        Kafka.readAll(bootstrap, topics.llmOutputs, output -> session.equals(output.getSessionId()))
                .forEach(output -> packets.add(output.getPacketId()));
        Set<String> calls = new HashSet<>();
        Kafka.readAll(bootstrap, topics.toolCalls, call -> session.equals(call.getSessionId()))
                .forEach(call -> calls.add(call.getCallId()));
        String listing = Kafka.readAll(bootstrap, topics.toolResults, result -> session.equals(result.getSessionId())
                && result.getStatus() == ToolStatus.SUCCEEDED).get(0).getText();
        return new Originals(packets, calls, listing);
    }

    /**
     * Why a record of a re-run does not point back, if it does not: it must carry time_travel, the original
     * session as origin_session_id, and a parent_id that leads to a packet or call of the original session, directly
     * or through the re-run's own records (an AutoFix retry within a re-run names its failed attempt).
     */
    private static Optional<String> pointsBack(SpecificRecord record, String session, Originals originals,
                                               Map<String, String> rerunParents) {
        SpecificRecord carrier = lineageCarrier(record);
        Schema schema = carrier.getSchema();
        for (String field : List.of("time_travel", "parent_id", "origin_session_id")) {
            if (schema.getField(field) == null) {
                return Optional.of(schema.getName() + " has no " + field);
            }
        }
        if (carrier.get(schema.getField("time_travel").pos()) == null) {
            return Optional.of("no time_travel");
        }
        if (!session.equals(String.valueOf(carrier.get(schema.getField("origin_session_id").pos())))) {
            return Optional.of("origin_session_id is not " + session);
        }
        Object parent = carrier.get(schema.getField("parent_id").pos());
        String id = parent == null ? null : parent.toString();
        for (int hop = 0; id != null && hop < 4; hop++) {
            if (originals.packets().contains(id) || originals.calls().contains(id)) {
                return Optional.empty();
            }
            id = rerunParents.get(id);
        }
        return Optional.of("parent_id " + parent + " leads to no record of " + session);
    }

    /** The parent of each packet and call the re-runs made, by id. */
    private static Map<String, String> rerunParents(String bootstrap, Topics topics, Set<String> sessions) {
        Map<String, String> parents = new HashMap<>();
        Kafka.readAll(bootstrap, topics.packets, packet -> sessions.contains(packet.getSessionId())
                && packet.getMeta().getTimeTravel() != null)
                .forEach(packet -> parents.put(packet.getMeta().getPacketId(), packet.getMeta().getParentId()));
        Kafka.readAll(bootstrap, topics.toolCalls, call -> sessions.contains(call.getSessionId())
                && call.getTimeTravel() != null).forEach(call -> parents.put(call.getCallId(), call.getParentId()));
        return parents;
    }

    /** Where a record keeps its lineage: a packet in its meta header, a decision in its call. */
    private static SpecificRecord lineageCarrier(SpecificRecord record) {
        for (String nested : List.of("meta", "call")) {
            Schema.Field field = record.getSchema().getField(nested);
            if (field != null) {
                return (SpecificRecord) record.get(field.pos());
            }
        }
        return record;
    }

    /** The session a record belongs to, when it belongs to one. */
    private static Optional<String> session(SpecificRecord record) {
        SpecificRecord carrier = record.getSchema().getField("call") != null ? lineageCarrier(record) : record;
        Schema.Field field = carrier.getSchema().getField("session_id");
        return field == null ? Optional.empty() : Optional.ofNullable(carrier.get(field.pos())).map(Object::toString);
    }

    private record Position(TopicPartition partition, long offset) {
        @Override
        public String toString() {
            return partition + "@" + offset;
        }
    }

    private interface Visitor {
        void visit(Position position, SpecificRecord record);
    }

    /** Every record of the topic, read_committed, from the start to its end now. */
    private static void walk(String bootstrap, Topic<?, ?> topic, Visitor visitor) {
        try (KafkaConsumer<byte[], byte[]> consumer = reader(bootstrap)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(info -> new TopicPartition(topic.name(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    Object value = topic.valueSerde().deserializer().deserialize(topic.name(), record.value());
                    if (value instanceof SpecificRecord specific) {
                        visitor.visit(new Position(new TopicPartition(record.topic(), record.partition()),
                                record.offset()), specific);
                    }
                }
            }
        }
    }

    private static Map<TopicPartition, Long> ends(String bootstrap, Topics topics) {
        try (KafkaConsumer<byte[], byte[]> consumer = reader(bootstrap)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (Topic<?, ?> topic : topics.all()) {
                consumer.partitionsFor(topic.name()).forEach(info ->
                        partitions.add(new TopicPartition(topic.name(), info.partition())));
            }
            return new HashMap<>(consumer.endOffsets(partitions));
        }
    }

    private static KafkaConsumer<byte[], byte[]> reader(String bootstrap) {
        return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
