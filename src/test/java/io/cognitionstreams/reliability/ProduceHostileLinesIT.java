package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.management.ThreadMXBean;
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
 * anything is sent, and the good lines around them still go out; a line too long to be a record is refused without
 * being held in memory. cognition.events is the target because its
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
        int exit = produce(err, "--topic", Topics.COGNITION_EVENTS, "--file", file.toString(),
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

    @Test
    void aFiftyMegabyteLineAndAHundredThousandDeepNestingAreRefusedInBoundedMemoryAndTheRestSent(
            EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
        StringWriter smallErr = new StringWriter();
        long small = allocatedWhileProducing(smallErr, withHugeLine(dir, 2), broker);
        StringWriter err = new StringWriter();
        long large = allocatedWhileProducing(err, withHugeLine(dir, 50), broker);

        assertThat(err.toString())
                .contains(String.format("line 2: $: the line is %,d bytes, over the limit of 1,048,588 "
                        + "(--max-line-bytes); it was not read", VALID.length() - 4 + (50L << 20)))
                .containsPattern("line 4: \\$\\S*: invalid JSON: Document nesting depth \\(1001\\) exceeds the "
                        + "maximum allowed \\(1000")
                .contains("sent 3 records to cognition.events, rejected 2 bad lines");
        assertThat(smallErr.toString()).contains("sent 3 records to cognition.events, rejected 2 bad lines");
        // The limit is the topic's max.message.bytes, the broker's default here. Held whole, the longer line would
        // cost its 48 MB more; read in bounded chunks, it costs nothing more.
        assertThat(large - small).as("bytes allocated for a 50 MB line beyond those for a 2 MB one")
                .isLessThan(8L << 20);
    }

    /** Bytes the reading thread allocated while `produce` ran, which must exit 1 for the bad lines. */
    private static long allocatedWhileProducing(StringWriter err, Path file, EmbeddedKafkaBroker broker) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        int exit = produce(err, "--topic", Topics.COGNITION_EVENTS, "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(exit).as(err.toString()).isEqualTo(1);
        return allocated;
    }

    /** Valid, a line with a message of {@code megabytes} MiB, valid, 100,000-deep nesting, valid. */
    private static Path withHugeLine(Path dir, int megabytes) throws IOException {
        Path file = dir.resolve("huge-" + megabytes + ".jsonl");
        byte[] mebibyte = "x".repeat(1 << 20).getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            out.write((VALID + "\n").getBytes(StandardCharsets.UTF_8));
            out.write(VALID.substring(0, VALID.indexOf("fine")).getBytes(StandardCharsets.UTF_8));
            for (int i = 0; i < megabytes; i++) {
                out.write(mebibyte);
            }
            out.write((VALID.substring(VALID.indexOf("fine") + 4) + "\n").getBytes(StandardCharsets.UTF_8));
            out.write((VALID + "\n").getBytes(StandardCharsets.UTF_8));
            out.write((VALID.replace("\"fine\"", "[".repeat(100_000) + "]".repeat(100_000)) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.write((VALID + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    private static int produce(StringWriter err, String... args) {
        CommandLine cli = CognitionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        String[] command = new String[args.length + 1];
        command[0] = "produce";
        System.arraycopy(args, 0, command, 1, args.length);
        return cli.execute(command);
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
