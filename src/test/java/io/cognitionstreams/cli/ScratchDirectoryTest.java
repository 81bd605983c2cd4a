package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScratchDirectoryTest {

    private static final String USER = "agent";

    @TempDir
    Path tmp;

    @Test
    void aProcessGetsALockedDirectoryOfItsOwnThatOnlyItsUserCanEnter() throws IOException {
        ScratchDirectory.Claimed own = ScratchDirectory.claim(tmp, USER);

        Path base = tmp.resolve("cognition-streams-" + USER);
        assertThat(own.directory().getParent()).isEqualTo(base);
        assertThat(own.directory().getFileName().toString()).startsWith(ProcessHandle.current().pid() + "-");
        assertThat(own.lock().isValid()).isTrue();
        assertThat(own.directory().resolve(ScratchDirectory.LOCK_FILE)).exists();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(base))).isEqualTo("rwx------");
    }

    @Test
    void aStartRemovesWhatAKilledProcessLeftAndKeepsTheDirectoryOfOneThatRuns() throws Exception {
        Process running = holder();
        Process killed = holder();
        Path runningDirectory = claimedBy(running);
        Path killedDirectory = claimedBy(killed);
        Files.write(killedDirectory.resolve("librocksdbjni123.so"), new byte[4096]);
        Files.createDirectories(killedDirectory.resolve("onnxruntime-java456"));
        killed.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        try {
            ScratchDirectory.Claimed own = ScratchDirectory.claim(tmp, USER);

            assertThat(killedDirectory).doesNotExist();
            assertThat(runningDirectory).exists();
            assertThat(own.directory()).exists();
        } finally {
            running.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Processes that start together (the executor's MCP servers, a supervisor's restarts) each get theirs. */
    @Test
    void claimsAtTheSameMomentEachGetADirectoryThatStays() throws Exception {
        int claims = 8;
        CyclicBarrier together = new CyclicBarrier(claims);
        ExecutorService threads = Executors.newFixedThreadPool(claims);
        try {
            List<Future<ScratchDirectory.Claimed>> claimed = new ArrayList<>();
            for (int i = 0; i < claims; i++) {
                claimed.add(threads.submit(() -> {
                    together.await();
                    return ScratchDirectory.claim(tmp, USER);
                }));
            }
            for (Future<ScratchDirectory.Claimed> each : claimed) {
                assertThat(each.get(30, TimeUnit.SECONDS).directory().resolve(ScratchDirectory.LOCK_FILE)).exists();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void theDirectoryOfAnotherClaimInThisProcessIsKept() throws IOException {
        ScratchDirectory.Claimed first = ScratchDirectory.claim(tmp, USER);
        ScratchDirectory.claim(tmp, USER);

        assertThat(first.directory()).exists();
    }

    @Test
    void aDirectoryWithoutItsLockFileIsRemovedOnlyOnceItIsAMinuteOld() throws IOException {
        Path base = ScratchDirectory.claim(tmp, USER).directory().getParent();
        Path justMade = Files.createDirectory(base.resolve("41-new"));
        Path abandoned = Files.createDirectory(base.resolve("42-abandoned"));
        Files.setLastModifiedTime(abandoned, FileTime.from(Instant.now().minus(Duration.ofMinutes(2))));

        ScratchDirectory.removeEnded(base);

        assertThat(justMade).exists();
        assertThat(abandoned).doesNotExist();
    }

    @Test
    void aLinkInAnEndedProcessesDirectoryIsRemovedNotFollowed() throws IOException {
        Path base = ScratchDirectory.claim(tmp, USER).directory().getParent();
        Path ended = Files.createDirectory(base.resolve("43-ended"));
        Files.createFile(ended.resolve(ScratchDirectory.LOCK_FILE));
        Path precious = Files.createDirectory(tmp.resolve("precious"));
        Files.writeString(precious.resolve("keep.txt"), "mine");
        Files.createSymbolicLink(ended.resolve("link"), precious);

        ScratchDirectory.removeEnded(base);

        assertThat(ended).doesNotExist();
        assertThat(precious.resolve("keep.txt")).hasContent("mine");
    }

    @Test
    void aBaseThatIsALinkIsRefusedAndWhatItPointsAtUntouched() throws IOException {
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Path victim = Files.createDirectory(elsewhere.resolve("7-victim"));
        Files.createFile(victim.resolve(ScratchDirectory.LOCK_FILE));
        Files.createSymbolicLink(tmp.resolve("cognition-streams-" + USER), elsewhere);

        assertThatThrownBy(() -> ScratchDirectory.claim(tmp, USER)).isInstanceOf(IOException.class)
                .hasMessageEndingWith("is not a directory");
        assertThat(victim.resolve(ScratchDirectory.LOCK_FILE)).exists();
    }

    /** A JVM of its own that claims a directory under {@link #tmp}, prints it and waits to be killed. */
    private Process holder() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                Holder.class.getName(), tmp.toString(), USER)).redirectErrorStream(true).start();
    }

    private static Path claimedBy(Process holder) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                StandardCharsets.UTF_8));
        StringBuilder printed = new StringBuilder();
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.startsWith("claimed ")) {
                return Path.of(line.substring("claimed ".length()));
            }
            printed.append(line).append('\n');
        }
        throw new AssertionError("the holder ended without claiming a directory:\n" + printed);
    }

    static final class Holder {
        public static void main(String[] args) throws Exception {
            ScratchDirectory.Claimed own = ScratchDirectory.claim(Path.of(args[0]), args[1]);
            System.out.println("claimed " + own.directory());
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(2));
            System.out.println(own.lock()); // reachable until killed: a collected lock's channel closes, freeing it
        }
    }
}
