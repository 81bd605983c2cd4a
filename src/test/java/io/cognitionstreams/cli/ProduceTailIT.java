package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.SharedBroker;

/** `produce` and `tail` against a running instance: what a user types, and what comes back. */
@ExtendWith(SharedBroker.class)
class ProduceTailIT {

    @Test
    void aProducedRequestComesBackOnTheChannelAndABadLineIsRejectedWithItsPath(EmbeddedKafkaBroker broker,
                                                                                @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        String session = "cli-" + UUID.randomUUID().toString().substring(0, 8);
        Settings settings = Settings.local(bootstrap, "it-" + session, dir.resolve("state"));
        try (CognitionRuntime runtime = CognitionRuntime.start(settings)) {
            runtime.awaitRunning(Duration.ofSeconds(60));
            Path lines = dir.resolve("requests.jsonl");
            Files.writeString(lines, String.join("\n",
                    "{\"request_id\":\"" + session + "-r1\",\"session_id\":\"" + session + "\","
                            + "\"user_prompt\":\"Research and compare two papers\",\"timestamp\":\"2026-11-22T10:00:00Z\"}",
                    "{\"request_id\":\"r2\",\"session_id\":\"" + session + "\",\"timestamp\":1}",
                    ""));

            Cli produce = Cli.run("produce", "--topic", "cognition.requests", "--file", lines.toString(),
                    "--bootstrap-servers", bootstrap);
            assertThat(produce.exitCode()).isEqualTo(1);
            assertThat(produce.err()).contains("line 2: $.user_prompt: required field missing")
                    .contains("sent 1 record to cognition.requests, rejected 1 bad line");

            Cli raw = Cli.run("produce", "--topic", "llm.outputs", "--raw", "--key", session,
                    "--bootstrap-servers", bootstrap, "--file", writeRaw(dir, "not an avro llm output"));
            assertThat(raw.exitCode()).as(raw.err()).isZero();

            // Wait until the pipeline has answered, so tail's idle timeout can be short.
            Kafka.readUntil(bootstrap, runtime.topics().channel(Channel.CLI_CHAT),
                    block -> block.getSessionId().equals(session),
                    seen -> seen.stream().anyMatch(b -> b.getSequence() == b.getBlockCount() - 1),
                    Duration.ofSeconds(60));
            Cli tail = Cli.run("tail", "--topic", "channel.cli_chat", "--bootstrap-servers", bootstrap,
                    "--timeout", "3s");
            assertThat(tail.out().lines().filter(line -> line.contains("\"session_id\":\"" + session + "\"")))
                    .anySatisfy(line -> assertThat(line).contains("\"marker\":\"PLAN\""))
                    .anySatisfy(line -> assertThat(line).contains("\"marker\":\"RESPONSE\""));

            // The letter keeps the refused record's own key, base64 like every bytes field in the JSON form.
            String originalKey = java.util.Base64.getEncoder().encodeToString(session.getBytes());
            Cli letters = Cli.run("tail", "--topic", "cognition.dlq", "--bootstrap-servers", bootstrap,
                    "--timeout", "3s", "--metadata");
            assertThat(letters.out().lines().filter(line -> line.contains("\"key\":\"" + originalKey + "\"")))
                    .singleElement().asString()
                    .contains("\"topic\":\"cognition.dlq\"", "\"key\":\"llm.outputs-",
                            "\"source_topic\":\"llm.outputs\"", "\"error_kind\":\"DESERIALIZATION\"");
        }
    }

    @Test
    void aCouncilMessageThatNamesItsSessionIsKeyedByItsCouncil(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        Path lines = dir.resolve("council.jsonl");
        Files.writeString(lines, "{\"msg_id\":\"hb-" + run + "\",\"council_id\":\"council-" + run + "\","
                + "\"session_id\":\"session-" + run + "\",\"timestamp\":\"2026-11-22T10:00:00Z\","
                + "\"sender\":\"lite\",\"role\":\"observer\",\"type\":\"HEARTBEAT\"}\n");

        Cli produce = Cli.run("produce", "--topic", "council.messages", "--file", lines.toString(),
                "--bootstrap-servers", broker.bootstrapServers());
        assertThat(produce.exitCode()).as(produce.err()).isZero();

        Cli tail = Cli.run("tail", "--topic", "council.messages", "--metadata", "--timeout", "3s",
                "--bootstrap-servers", broker.bootstrapServers());
        assertThat(tail.out().lines().filter(line -> line.contains("\"msg_id\":\"hb-" + run + "\"")))
                .singleElement().asString().contains("\"key\":\"council-" + run + "\"");
    }

    @Test
    void unknownTopicsAndBadOptionsAreClearErrors() {
        Cli produce = Cli.run("produce", "--topic", "no.such.topic", "--bootstrap-servers", "127.0.0.1:1");
        assertThat(produce.exitCode()).isEqualTo(2);
        assertThat(produce.err()).contains("unknown topic no.such.topic");

        Cli tail = Cli.run("tail", "--topic", "channel.cli_chat", "--timeout", "soon");
        assertThat(tail.exitCode()).isEqualTo(2);
        assertThat(tail.err()).contains("'soon' is not a duration");
    }

    private static String writeRaw(Path dir, String line) throws java.io.IOException {
        Path file = dir.resolve("raw.txt");
        Files.writeString(file, line + "\n");
        return file.toString();
    }
}
