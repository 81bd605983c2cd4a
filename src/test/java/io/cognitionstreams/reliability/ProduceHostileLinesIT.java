package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.cli.CognitionCli;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine;

/**
 * Hostile JSON lines through `cognition produce`: each is refused with its line number and JSON path before
 * anything is sent, and the good lines around them still go out. cognition.events is the target because its
 * records have an enum and no capability reads them.
 */
@ExtendWith(SharedBroker.class)
class ProduceHostileLinesIT {

    private static final String VALID = "{\"event_id\":\"e1\",\"type\":\"SOAK\",\"message\":\"fine\","
            + "\"timestamp\":\"2026-11-22T10:00:00Z\"}";

    @Test
    void eachHostileLineIsRefusedWithItsNumberAndPathAndTheOthersAreSent(EmbeddedKafkaBroker broker,
                                                                        @TempDir Path dir) throws Exception {
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        for (String line : new String[] {VALID,
                VALID.replace("\"SOAK\"", "\"SOAK\",\"severity\":\"PANIC\""),
                VALID.replace("\"fine\"", "[".repeat(10_000) + "]".repeat(10_000)),
                VALID.replace("\"fine\"", "42"),
                VALID.replace("\"message\":\"fine\",", ""),
                VALID.replace("\"SOAK\"", "\"SOAK\",\"mood\":\"grim\""),
                "{\"event_id\":\"e1\",\"type\":\"SOAK\",\"message\":\"bad \u0001",
                VALID}) {
            lines.write(line.getBytes(StandardCharsets.UTF_8));
            lines.write('\n');
        }
        byte[] bytes = lines.toByteArray();
        bytes[indexOf(bytes, (byte) 1)] = (byte) 0xFF;
        Path file = dir.resolve("events.jsonl");
        Files.write(file, bytes);

        StringWriter err = new StringWriter();
        CommandLine cli = CognitionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("produce", "--topic", Topics.COGNITION_EVENTS, "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString())
                .contains("line 2: $.severity: expected one of [INFO, WARN, ERROR]")
                .containsPattern("line 3: \\$\\S*: invalid JSON: .*[Nn]esting depth")
                .contains("line 4: $.message: expected string")
                .contains("line 5: $.message: required field missing")
                .contains("line 6: $.mood: unknown field")
                .contains("line 7: $: the line is not valid UTF-8")
                .contains("sent 2 records to cognition.events, rejected 6 bad lines");
    }

    private static int indexOf(byte[] bytes, byte wanted) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        throw new IllegalArgumentException("not found");
    }
}
