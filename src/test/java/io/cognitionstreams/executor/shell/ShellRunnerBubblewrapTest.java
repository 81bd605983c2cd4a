package io.cognitionstreams.executor.shell;

import static io.cognitionstreams.executor.shell.ShellProcesses.runningWithCommandLine;
import static io.cognitionstreams.executor.shell.ShellProcesses.settings;
import static io.cognitionstreams.executor.shell.ShellProcesses.workerEnvironment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.executor.shell.ShellSettings.Isolation;

/**
 * The runner inside bubblewrap. Skipped (not failed) where bubblewrap is not installed or cannot make namespaces:
 * the skip message is the runner's own account of why.
 */
@Timeout(60)
class ShellRunnerBubblewrapTest {

    @TempDir
    Path root;

    private ShellRunner runner(Duration timeout) {
        ShellRunner runner = new ShellRunner(settings(root, timeout, ShellSettings.DEFAULT_MAX_BYTES_PER_STREAM,
                Isolation.AUTO), workerEnvironment());
        assumeTrue(runner.isolation().startsWith("bubblewrap "), runner.isolation());
        return runner;
    }

    @Test
    void theCommandWritesOnlyItsSessionDirectoryAndHasNoNetworkNorCapabilities() throws Exception {
        ShellRunner runner = runner(Duration.ofSeconds(60));
        Path hostTmpFile = Path.of("/tmp", "cognition-sandbox-" + UUID.randomUUID());

        ShellOutcome outcome = runner.run("box", String.join("; ",
                "touch /etc/cognition-sandbox && echo wrote etc",
                "echo kept > here",
                "echo private > " + hostTmpFile + " && echo tmp ok",
                "grep CapEff /proc/self/status",
                "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '",
                "env | grep -c SECRET"));

        assertThat(outcome.stdout()).isEqualTo("tmp ok\nCapEff:\t0000000000000000\nlo\n0\n");
        assertThat(outcome.stderr()).contains("Read-only file system");
        assertThat(Files.readString(runner.workdir("box").resolve("here"))).isEqualTo("kept\n");
        assertThat(hostTmpFile).as("the sandbox's /tmp is its own").doesNotExist();
    }

    @Test
    void otherSessionsAreHidden() throws Exception {
        ShellRunner runner = runner(Duration.ofSeconds(60));
        runner.run("a", "echo mine > file");

        ShellOutcome outcome = runner.run("b", "ls -A ..; cat " + runner.workdir("a").resolve("file"));

        assertThat(outcome.stdout()).isEqualTo(runner.workdir("b").getFileName() + "\n");
        assertThat(outcome.exitCode()).isNotZero();
    }

    @Test
    void theTimeoutAndTheEndOfTheCommandLeaveNothingRunning() throws Exception {
        ShellRunner runner = runner(Duration.ofMillis(1500));
        String marker = Long.toString(ThreadLocalRandom.current().nextLong(100_000, 1_000_000_000));

        AtomicInteger mostSeen = new AtomicInteger();
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread watcher = new Thread(() -> {
            while (watching.get()) {
                try {
                    mostSeen.accumulateAndGet(runningWithCommandLine("sleep", marker).size(), Math::max);
                    Thread.sleep(50);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        watcher.start();
        ShellOutcome timedOut = runner.run("t", "sleep " + marker + " & "
                + "sh -c 'trap \"\" TERM; sleep " + marker + "' & setsid sleep " + marker + " & sleep " + marker);
        watching.set(false);
        watcher.join();
        ShellOutcome escaped = runner.run("t", "(setsid sleep " + marker + " &); echo out");

        assertThat(timedOut.timedOut()).isTrue();
        assertThat(mostSeen).as("sleeps seen from outside while the command ran").hasValue(4);
        assertThat(escaped.timedOut()).isFalse();
        assertThat(escaped.stdout()).as("a process that leaves the session still dies with the sandbox")
                .isEqualTo("out\n");
        assertThat(runningWithCommandLine("sleep", marker)).isEmpty();
    }
}
