package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short form of the broker restart (`bin/broker-restart` is the long one): a brief outage, then one longer
 * than the clients' max.block.ms. That is 15 s here, not Kafka's 60 s, so the outage past it costs 20 s rather than
 * 65; it is still past the session and transaction timeouts too. Its own broker, not the shared one, which other
 * tests are using.
 */
class BrokerRestartIT {

    @Test
    void theAppRecoversByItselfAndLosesNothing(@TempDir Path dir) throws Exception {
        BrokerRestartRun.Report report = BrokerRestartRun.run(dir, new BrokerRestartRun.Options(1_500, 50,
                List.of(Duration.ofSeconds(5), Duration.ofSeconds(20)), Duration.ofSeconds(15), false), System.out);

        assertThat(report.aborted()).as("nothing aborted by hand").isEmpty();
        assertThat(report.stillRunning()).as("every capability back to RUNNING without help").isTrue();
        assertThat(report.verdict().ok()).as(report.verdict().toString()).isTrue();
    }
}
