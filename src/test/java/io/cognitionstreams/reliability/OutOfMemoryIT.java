package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An OutOfMemoryError ends `bin/cognition run` instead of leaving it up answering nothing, and the next start on the
 * same directories answers. The first start gets a heap too small for the broker, the stream threads and the
 * tokenizers together, through COGNITION_JAVA_OPTS as an operator would set it: without the launcher's
 * -XX:+ExitOnOutOfMemoryError that process logs the errors and stays up, deaf even to SIGTERM.
 */
class OutOfMemoryIT {

    /** Enough to start the broker and create the state stores, not enough to run. */
    private static final String TINY_HEAP = "-Xmx128m";

    @TempDir
    Path workDir;

    @Test
    void anOutOfMemoryErrorEndsTheProcessAndTheNextStartAnswers() throws Exception {
        Path dataDir = workDir.resolve("data");
        List<String> run = List.of("run", "--demo", "--data-dir", dataDir.toString(), "--port",
                String.valueOf(ChildApp.freePort()), "--controller-port", String.valueOf(ChildApp.freePort()));

        Launched starved = launch(Map.of("COGNITION_JAVA_OPTS", TINY_HEAP), run, 120);

        assertThat(starved.exitCode()).as("exit code of a run out of memory; its output:%n%s", starved.output())
                .isEqualTo(3);
        assertThat(starved.output()).contains("Terminating due to java.lang.OutOfMemoryError");

        List<String> again = new ArrayList<>(run);
        again.addAll(List.of("--exit-after-demo", "--demo-timeout", "150s"));
        Launched restarted = launch(Map.of(), again, 200);

        assertThat(restarted.exitCode()).as("the restart on the same directories; its output:%n%s",
                restarted.output()).isZero();
        assertThat(restarted.output()).containsPattern("channel\\.cli_chat\\s+demo-deploy\\s+1/\\d+ PLAN");
    }

    private record Launched(int exitCode, String output) {
    }

    /** bin/cognition with {@code args}, its default heap unless {@code env} sets COGNITION_JAVA_OPTS. */
    private Launched launch(Map<String, String> env, List<String> args, int timeoutSeconds)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of("bin", "cognition").toAbsolutePath().toString()));
        command.addAll(args);
        Path output = Files.createTempFile(workDir, "output", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().remove("COGNITION_JAVA_OPTS");
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor();
            throw new AssertionError(String.join(" ", command) + " " + env + " still running after "
                    + timeoutSeconds + " s: " + Files.readString(output, StandardCharsets.UTF_8));
        }
        return new Launched(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}
