package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short form of the kill-and-restart run on the embedded default; `bin/kill-restart --kills 10` is the long
 * one. The times are printed, not asserted: on a shared two-core machine they say more about the neighbours. One
 * kill: a kill can leave a hanging transaction on the embedded broker (docs/reliability.md, "Kill and restart"),
 * which fails the run with the transaction named, and each kill is one more chance of it.
 */
class RestartIT {

    @Test
    void answersResumeAfterAKillAndEveryRequestIsAnsweredOnce(@TempDir Path workDir) throws Exception {
        long seed = System.nanoTime();
        RestartRun.Report report = RestartRun.run(workDir, new RestartRun.Options(1, 20, seed, false), System.out);

        assertThat(report.restarts()).as("a first answer after the kill").hasSize(1);
        assertThat(report.verdict().ok()).as("seed %d: %s", seed, report.verdict()).isTrue();
    }
}
