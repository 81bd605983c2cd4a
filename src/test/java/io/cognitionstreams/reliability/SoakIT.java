package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short form of the soak; `bin/soak --malformed 10000 --valid 10000` is the long one. On its own broker: the
 * shared one's topics are read by tests that expect only what they wrote there.
 */
class SoakIT {

    @Test
    void everyMalformedRecordIsDeadLetteredOnceAndEveryValidOneAnswered(@TempDir Path workDir) throws Exception {
        long seed = System.nanoTime();
        SoakRun.Report report = SoakRun.run(workDir, new SoakRun.Options(1_000, 1_000, 400, seed), System.out);

        assertThat(report.perKind()).hasSize(Malformed.values().length + 2);
        assertThat(report.ok()).as("seed %d: %s", seed, report).isTrue();
    }
}
