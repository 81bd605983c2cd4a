package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.testing.IsolatedBroker;

/** The short form of the crash test; `bin/crash-test --requests 50000 --kills 10` is the long one. */
@ExtendWith(IsolatedBroker.class)
class CrashIT {

    @Test
    void requestsAreAnsweredExactlyOnceAcrossKills(EmbeddedKafkaBroker broker, @TempDir Path workDir)
            throws Exception {
        long seed = System.nanoTime();
        CrashRun.Report report = CrashRun.run(broker.bootstrapServers(), workDir,
                new CrashRun.Options(2_000, 2, 200, seed), System.out);

        assertThat(report.kills()).hasSize(2);
        assertThat(report.verdict().ok()).as("seed %d: %s", seed, report.verdict()).isTrue();
    }
}
