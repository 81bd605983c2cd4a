package io.cognitionstreams.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.executor.shell.ShellRunner;
import io.cognitionstreams.executor.shell.ShellSettings;
import io.cognitionstreams.schema.ToolStatus;

/** What a model reads of a shell command: real commands on the real runner, no sandbox needed. */
class ShellCallsTest {

    @TempDir
    Path root;

    private ShellCalls shell(Duration timeout) {
        return new ShellCalls(new ShellRunner(new ShellSettings(root, timeout, 1024, List.of("PATH"),
                ShellSettings.Isolation.NONE, Duration.ofMillis(200))));
    }

    @Test
    void exitStatusZeroSucceedsWithItsOutputAndTheNumbersBehindIt() {
        Outcome outcome = shell(Duration.ofSeconds(30)).run("s1", "echo hello");

        assertThat(outcome.status()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(outcome.text()).isEqualTo("hello\n");
        assertThat(outcome.json()).contains("\"exit_code\":0", "\"timed_out\":false");
    }

    @Test
    void aFailingCommandFailsButKeepsItsStderrForTheModel() {
        Outcome outcome = shell(Duration.ofSeconds(30)).run("s1", "echo partial; echo 'no such file' >&2; exit 3");

        assertThat(outcome.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(outcome.error()).isEqualTo("exit status 3");
        assertThat(outcome.text()).isEqualTo("partial\n[stderr]\nno such file\n");
    }

    @Test
    void aCommandPastTheTimeoutIsKilledAndSaysSo() {
        Outcome outcome = shell(Duration.ofMillis(500)).run("s1", "sleep 30");

        assertThat(outcome.status()).isEqualTo(ToolStatus.TIMED_OUT);
        assertThat(outcome.error()).contains("every process of the command was killed");
        assertThat(outcome.json()).contains("\"exit_code\":null", "\"timed_out\":true");
    }

    @Test
    void aCommandNoProcessCanBeGivenIsRefusedBeforeAnythingRuns() {
        Outcome outcome = shell(Duration.ofSeconds(30)).run("s1", "echo a\u0000b");

        assertThat(outcome.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(outcome.error()).startsWith("not run: ");
        assertThat(outcome.durationMs()).isZero();
    }
}
