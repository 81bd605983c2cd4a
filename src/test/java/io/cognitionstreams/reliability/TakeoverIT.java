package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.testing.IsolatedBroker;

/**
 * The short form of the takeover run: two instances, one killed with SIGKILL while requests flow, the survivor
 * takes its partitions over; every request is answered exactly once. With the settings docs/reliability.md measures
 * ("Takeover by a surviving instance"); `bin/takeover` is the long form, with the times. No timing is asserted.
 */
@ExtendWith(IsolatedBroker.class)
class TakeoverIT {

    @Test
    void theSurvivorAnswersEveryRequestOfTheKilledInstanceExactlyOnce(EmbeddedKafkaBroker broker,
                                                                     @TempDir Path workDir) throws Exception {
        long seed = System.nanoTime();
        TakeoverRun.Report report = TakeoverRun.run(broker.bootstrapServers(), workDir, new TakeoverRun.Options(1,
                20, seed, List.of("--session-timeout", "3s", "--standby-replicas", "1")), System.out);

        assertThat(report.takeovers()).hasSize(1);
        assertThat(report.verdict().ok()).as("seed %d: %s", seed, report.verdict()).isTrue();
        // The survivor fenced the dead one's transactional ids once its members were gone (it looks every 0.5 s;
        // the dead one is started again only after every partition answered, and takes seconds to rejoin).
        String survivor = report.takeovers().get(0).instance().equals("a") ? "b" : "a";
        assertThat(Files.readString(workDir.resolve(survivor + ".log"))).contains("fencing the transactional ids");
    }
}
