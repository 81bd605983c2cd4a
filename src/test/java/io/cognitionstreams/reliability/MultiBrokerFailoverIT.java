package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.BrokerCluster;

/**
 * The short form of the broker failover run: one kill of the node leading the most partitions of a three-node
 * cluster; `bin/broker-failover --kills 2` is the long one, with the times. No timing is asserted here, and the kill
 * does not wait for the app to have worked off its start (on a loaded machine that took a minute): a kill amid a
 * backlog has as much to lose or double.
 */
class MultiBrokerFailoverIT {

    @Test
    void requestsAreAnsweredExactlyOnceWhenTheBusiestBrokerIsKilled(@TempDir Path workDir) throws Exception {
        long seed = System.nanoTime();
        FailoverRun.Report report;
        try (BrokerCluster cluster = BrokerCluster.start(workDir.resolve("cluster"), FailoverRun.NODES,
                Duration.ofMinutes(2))) {
            report = FailoverRun.run(cluster, workDir, new FailoverRun.Options(1, 20, seed, false), System.out);
        }

        assertThat(report.kills()).hasSize(1);
        assertThat(report.kills().get(0).led()).as("partitions the killed node led").isPositive();
        assertThat(report.verdict().ok()).as("seed %d: %s", seed, report.verdict()).isTrue();
    }
}
