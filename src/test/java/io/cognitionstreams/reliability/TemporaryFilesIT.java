package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a killed `bin/cognition run` leaves in the temporary directory, the native library RocksDB unpacked there at
 * its start (its exit would have deleted it; a kill runs no exit), is gone once the next `cognition` command starts.
 */
class TemporaryFilesIT {

    @TempDir
    Path workDir;

    @Test
    void theNextCommandRemovesWhatAKilledRunLeftInTheTemporaryDirectory() throws Exception {
        Path tmp = Files.createDirectory(workDir.resolve("tmp"));
        Optional<String> inTmp = Optional.of("-Xmx1g -Djava.io.tmpdir=" + tmp);
        Path log = workDir.resolve("run.log");
        ChildApp killed = ChildApp.launch(log, inTmp, List.of("--data-dir", workDir.resolve("data").toString(),
                "--port", String.valueOf(ChildApp.freePort()), "--controller-port",
                String.valueOf(ChildApp.freePort())));
        killed.requireRunning(Duration.ofMinutes(3));
        killed.kill();
        assertThat(nativeLibraries(tmp)).as("what the killed run left").isNotEmpty();

        ProcessBuilder next = new ProcessBuilder(Path.of("bin", "cognition").toAbsolutePath().toString(), "--version")
                .redirectErrorStream(true).redirectOutput(workDir.resolve("version.log").toFile());
        next.environment().put("COGNITION_JAVA_OPTS", inTmp.get());
        Process version = next.start();
        assertThat(version.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(version.exitValue()).as(Files.readString(workDir.resolve("version.log"), StandardCharsets.UTF_8))
                .isZero();
        assertThat(nativeLibraries(tmp)).as("left after the next command").isEmpty();
    }

    /** RocksDB's unpacked libraries anywhere under {@code tmp}. */
    private static List<Path> nativeLibraries(Path tmp) throws IOException {
        try (Stream<Path> files = Files.walk(tmp)) {
            return files.filter(file -> file.getFileName().toString().startsWith("librocksdbjni")).toList();
        }
    }
}
