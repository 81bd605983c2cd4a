package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import org.apache.kafka.clients.producer.RecordMetadata;

import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.Records;

/**
 * The end-to-end scenario every real cluster must pass: requests in, routed blocks out on the channel topics,
 * read_committed; bad records dead-lettered while the records around them are still answered. Run against the
 * embedded broker ({@link PipelineIT}) and, where Docker exists, a Testcontainers Kafka ({@link PipelineContainerIT}).
 */
final class PipelineScenario {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private PipelineScenario() {
    }

    static void run(String bootstrap, Path stateDir) throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        Settings settings = Settings.local(bootstrap, "it-" + run, stateDir);
        try (CognitionRuntime runtime = Logins.start(settings)) {
            runtime.awaitRunning(TIMEOUT);
            var topics = runtime.topics();
            String deploy = "deploy-" + run;
            String triage = "triage-" + run;
            String broken = "broken-" + run;
            Kafka.send(bootstrap, topics.requests, deploy,
                    Records.request(deploy, "Plan the deploy of release 2.4.0").setTimestamp(Instant.now()).build());
            RecordMetadata garbage = Kafka.send(bootstrap, topics.requests.name(), broken,
                    "definitely not avro".getBytes(StandardCharsets.UTF_8));
            RecordMetadata empty = Kafka.send(bootstrap, topics.requests, broken,
                    Records.request(broken, " ").setTimestamp(Instant.now()).build());
            // Only assembly reads tool.decisions, so it owns the letter for a bad record there. Only the app may
            // write it on a secured broker: a broken app instance, then.
            RecordMetadata badDecision = Kafka.send(Logins.as(bootstrap, Principals.APP), topics.toolDecisions.name(),
                    broken,
                    "no decision".getBytes(StandardCharsets.UTF_8));
            Kafka.send(bootstrap, topics.requests, triage,
                    Records.request(triage, "Triage this crash bug").setTimestamp(Instant.now()).build());

            Set<String> sessions = Set.of(deploy, triage);
            List<RoutedBlock> cli = Kafka.readUntil(bootstrap, topics.channel(Channel.CLI_CHAT),
                    block -> sessions.contains(block.getSessionId()),
                    seen -> lastBlocksSeen(seen, sessions), TIMEOUT);
            assertThat(cli.stream().filter(b -> b.getSessionId().equals(deploy)).map(RoutedBlock::getMarker))
                    .containsExactly(Marker.PLAN, Marker.RESPONSE, Marker.VERIFY);
            assertThat(cli.stream().filter(b -> b.getSessionId().equals(triage)).map(RoutedBlock::getMarker))
                    .containsExactly(Marker.PREAMBLE, Marker.PLAN, Marker.RESPONSE, Marker.INTERRUPT);
            assertThat(cli).allSatisfy(block -> assertThat(block.getOutputId()).isNotBlank());

            List<RoutedBlock> web = Kafka.readUntil(bootstrap, topics.channel(Channel.WEB_CHAT),
                    block -> sessions.contains(block.getSessionId()), seen -> seen.size() >= 4, TIMEOUT);
            assertThat(web).extracting(RoutedBlock::getMarker).doesNotContain(Marker.PLAN, Marker.PREAMBLE);

            List<ToolCall> calls = Kafka.readUntil(bootstrap, topics.toolCalls,
                    call -> call.getSessionId() != null && sessions.contains(call.getSessionId()),
                    seen -> seen.size() >= 2, TIMEOUT);
            assertThat(calls).extracting(ToolCall::getArguments).containsExactlyInAnyOrder(
                    "{\"command\":\"git tag -a v2.4.0 -m \\\"release 2.4.0\\\"\"}",
                    "{\"command\":\"mvn -q test -Dtest=ParserTest\"}");

            Set<String> letterKeys = Set.of(
                    DeadLetters.key(garbage.topic(), garbage.partition(), garbage.offset()),
                    DeadLetters.key(empty.topic(), empty.partition(), empty.offset()),
                    DeadLetters.key(badDecision.topic(), badDecision.partition(), badDecision.offset()));
            List<DeadLetter> letters = Kafka.readUntil(bootstrap, topics.deadLetters,
                    letter -> letterKeys.contains(DeadLetters.key(letter.getSourceTopic(),
                            letter.getSourcePartition(), letter.getSourceOffset())),
                    seen -> seen.size() >= 3, TIMEOUT);
            assertThat(letters).extracting(DeadLetter::getErrorKind)
                    .containsExactlyInAnyOrder(ErrorKind.DESERIALIZATION, ErrorKind.VALIDATION,
                            ErrorKind.DESERIALIZATION);
            assertThat(letters).filteredOn(letter -> letter.getSourceTopic().equals(topics.toolDecisions.name()))
                    .singleElement().satisfies(letter -> assertThat(letter.getApplicationId()).endsWith("-assembly"));
            assertThat(letters).extracting(DeadLetter::getReason)
                    .anySatisfy(reason -> assertThat(reason).contains("not an Avro single-object encoded"))
                    .anySatisfy(reason -> assertThat(reason).isEqualTo("user_prompt is empty"));
        }
    }

    private static boolean lastBlocksSeen(List<RoutedBlock> seen, Set<String> sessions) {
        return seen.stream().filter(b -> b.getSequence() == b.getBlockCount() - 1)
                .map(RoutedBlock::getSessionId).collect(Collectors.toSet()).containsAll(sessions);
    }
}
