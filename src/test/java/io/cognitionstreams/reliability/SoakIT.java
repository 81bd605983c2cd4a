package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.testing.IsolatedBroker;

/** The short form of the soak; `bin/soak --malformed 10000 --valid 10000` is the long one. */
@ExtendWith(IsolatedBroker.class)
class SoakIT {

    @Test
    void everyMalformedRecordIsDeadLetteredOnceAndEveryValidOneAnswered(EmbeddedKafkaBroker broker,
                                                                         @TempDir Path workDir) throws Exception {
        long seed = System.nanoTime();
        SoakRun.Report report = SoakRun.run(broker.bootstrapServers(), workDir,
                new SoakRun.Options(1_000, 1_000, 400, seed), System.out);

        assertThat(report.perKind()).hasSize(Malformed.values().length + 2);
        assertThat(report.ok()).as("seed %d: %s", seed, report).isTrue();
    }
}
