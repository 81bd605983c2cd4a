package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/broker-restart} as a user types it, through bin/test-main (which runs Maven's test-compile first, a
 * no-op on a built tree, hence an IT): help and a mistyped flag answer at once instead of starting a run of tens of
 * minutes, as both did when unknown flags were ignored.
 */
class LongRunUsageIT {

    /** The line a run prints once it has started its broker. */
    private static final String RUN_STARTED = "broker restart run ";

    @TempDir
    Path workDir;

    private record Launched(int exitCode, String out, String err) {
    }

    @Test
    void helpPrintsTheUsageAndStartsNothing() throws Exception {
        Launched launched = launch("bin/broker-restart", "--help");

        assertThat(launched.exitCode()).as(launched.err()).isZero();
        assertThat(launched.out()).startsWith("Usage: bin/broker-restart").contains("--downtimes", "--max-block")
                .doesNotContain(RUN_STARTED);
    }

    @Test
    void unknownFlagExitsTwoWithTheErrorAndStartsNothing() throws Exception {
        Launched launched = launch("bin/broker-restart", "--bogus", "1");

        assertThat(launched.exitCode()).as(launched.err()).isEqualTo(2);
        assertThat(launched.err()).contains("Unknown options: '--bogus', '1'", "Usage: bin/broker-restart");
        assertThat(launched.out()).doesNotContain(RUN_STARTED);
    }

    private Launched launch(String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(script).toAbsolutePath().toString()));
        command.addAll(List.of(args));
        Path out = workDir.resolve("stdout.txt");
        Path err = workDir.resolve("stderr.txt");
        // Files, not pipes: a pipe left unread could fill and stall the child.
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .start();
        // Time for Maven's up-to-date check on a busy machine; a started run would take tens of minutes.
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not return in 3 minutes: "
                    + Files.readString(out, StandardCharsets.UTF_8));
        }
        return new Launched(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
