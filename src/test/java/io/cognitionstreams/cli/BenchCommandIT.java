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
}
