package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.testing.IsolatedBroker;

/** `cognition bench` end to end at a low rate: a row per rate, both probes answered, peak memory reported. */
@ExtendWith(IsolatedBroker.class)
class BenchCommandIT {

    @Test
    void measuresThePipelineNextToAPassThroughAndReportsPeakMemory(EmbeddedKafkaBroker broker) {
        Cli bench = Cli.run("bench", "--bootstrap-servers", broker.bootstrapServers(), "--rates", "20,40",
                "--duration", "2s", "--warmup", "1s", "--workload", "NO_MEMORY");

        assertThat(bench.exitCode()).as(bench.err()).isZero();
        assertThat(bench.out()).contains("workload NO_MEMORY", "pipeline", "pass-through")
                .containsPattern("(?m)^\\s+20\\s+40 \\|")
                .containsPattern("(?m)^\\s+40\\s+80 \\|")
                .containsPattern("peak RSS \\(VmHWM\\) of this JVM \\(app and bench clients\\): \\d+ MB");
        assertThat(bench.err()).as("the progress line").contains("\r").contains("sent ");
    }

    /** --secure starts two embedded brokers of its own (it is refused with --bootstrap-servers). */
    @Test
    void measuresSecureModeSideBySideWithPlainOnItsOwnBrokers() {
        Cli bench = Cli.run("bench", "--secure", "--rates", "20", "--duration", "2s", "--warmup", "1s",
                "--workload", "NO_MEMORY");

        assertThat(bench.exitCode()).as(bench.err()).isZero();
        // Both rows answered in full (open 0): the agent could send, the operator read, the app run as User:app.
        assertThat(bench.out()).containsPattern("(?m)^\\s+20\\s+40 plain\\s+\\|.*\\s0 \\|.*\\s0$")
                .containsPattern("(?m)^\\s+20\\s+40 secure\\s+\\|.*\\s0 \\|.*\\s0$")
                .containsPattern("secure vs plain at 20/s: pipeline answers/s [-+]\\d+\\.\\d %")
                .contains("two brokers, two apps and bench clients");
        assertThat(bench.err()).contains("secured: ").contains("(secure): embedded broker");
    }

    @Test
    void secureNeedsTheEmbeddedBroker() {
        Cli bench = Cli.run("bench", "--secure", "--bootstrap-servers", "localhost:1");

        assertThat(bench.exitCode()).isEqualTo(2);
        assertThat(bench.err()).contains("--secure compares against a secured embedded broker");
    }
}
