package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short form of the kill-and-restart run on the embedded default; `bin/kill-restart --kills 10` is the long
 * one. The times are printed, not asserted: on a shared two-core machine they say more about the neighbours.
 */
class RestartIT {

    @Test
    void answersResumeAfterEachKillAndEveryRequestIsAnsweredOnce(@TempDir Path workDir) throws Exception {
        long seed = System.nanoTime();
        RestartRun.Report report = RestartRun.run(workDir, new RestartRun.Options(2, 20, seed), System.out);

        assertThat(report.restarts()).as("a first answer after each kill").hasSize(2);
        assertThat(report.verdict().ok()).as("seed %d: %s", seed, report.verdict()).isTrue();
    }
}
