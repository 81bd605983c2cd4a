package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/cognition's class-data archive for {@code run}, as a user meets it: the first run of a build writes it when it
 * stops, the next start checks it and maps it. An archive cut off by a kill during its dump crashes any JVM that maps
 * it (SIGBUS), so the launcher checks each in a JVM of its own and throws a bad one away, and the marks of runs
 * killed before they wrote one. Other forks' launches may take the same steps on the same files in between; each
 * step leaves what this test checks.
 */
class ClassArchiveIT {

    private static final Path ARCHIVE = Path.of("target", "run.jsa").toAbsolutePath();
    private static final Duration START = Duration.ofMinutes(3);
    /** Above Linux's largest pid (4,194,304): never a live process, so the launcher takes the file as finished. */
    private static final long DEAD_PID = 9_999_999;
    private static final long OTHER_DEAD_PID = 4_999_999;
    private static final long KILLED_PID = 4_999_998;

    @TempDir
    Path workDir;

    @Test
    void theFirstRunArchivesItsClassesAndTheNextStartMapsThemNeverACutOffOne() throws Exception {
        deleteArchives();
        Path log = workDir.resolve("app.log");
        List<String> run = List.of("--data-dir", workDir.resolve("data").toString(), "--port",
                String.valueOf(ChildApp.freePort()), "--controller-port", String.valueOf(ChildApp.freePort()));

        ChildApp first = ChildApp.launch(log, Optional.empty(), run);
        first.requireRunning(START);
        assertThat(Files.readString(log)).contains("the first run of this build: its stop archives the classes");
        assertThat(maps(first.pid())).as("no archive to map yet").isFalse();
        assertThat(first.stop()).as("SIGTERM's exit code, the archive written").isEqualTo(143);
        Path made = Path.of(ARCHIVE + "." + first.pid());
        Path archive = Files.exists(made) ? made : ARCHIVE; // another fork's start may have moved it into place
        assertThat(archive).exists();
        assertThat(Files.size(archive)).as("the classes of a running app, not of a bare JVM")
                .isGreaterThan(20L * 1024 * 1024);

        // The archive under a finished run's name, and before it (in the launcher's order) a copy cut in half, as a
        // kill during the dump leaves it; both marked as from a run that got to running.
        Path good = Path.of(ARCHIVE + "." + DEAD_PID);
        Files.move(archive, good, StandardCopyOption.REPLACE_EXISTING);
        Files.deleteIfExists(Path.of(archive + ".ready"));
        Path cutOff = Path.of(ARCHIVE + "." + OTHER_DEAD_PID);
        copyHalf(good, cutOff);
        for (Path candidate : List.of(good, cutOff)) {
            Files.writeString(Path.of(candidate + ".ready"), "");
        }
        // And the mark of a run killed after it got to running, before its exit could write an archive.
        Path orphanMark = Path.of(ARCHIVE + "." + KILLED_PID + ".ready");
        Files.writeString(orphanMark, "");

        long secondStart = Files.size(log);
        ChildApp second = ChildApp.launch(log, Optional.empty(), run);
        second.requireRunning(START);
        String started = ChildApp.logSince(log, secondStart);
        assertThat(started).doesNotContain("the first run of this build").doesNotContain("A fatal error");
        assertThat(maps(second.pid())).as("the checked archive, moved into place").isTrue();
        assertThat(cutOff).as("the cut-off archive, thrown away").doesNotExist();
        assertThat(Path.of(cutOff + ".ready")).doesNotExist();
        assertThat(orphanMark).as("a mark without its archive, cleared").doesNotExist();
        assertThat(second.stop()).isEqualTo(143);
    }

    private static boolean maps(long pid) throws IOException {
        return Files.readString(Path.of("/proc", String.valueOf(pid), "maps")).contains(ARCHIVE.toString());
    }

    private static void copyHalf(Path from, Path to) throws IOException {
        long half = Files.size(from) / 2;
        try (InputStream in = Files.newInputStream(from); OutputStream out = Files.newOutputStream(to)) {
            out.write(in.readNBytes((int) half));
        }
    }

    private static void deleteArchives() throws IOException {
        try (var files = Files.list(ARCHIVE.getParent())) {
            for (Path file : files.filter(path -> path.getFileName().toString().startsWith("run.jsa")).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
