package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.load.EndToEndBench;
import io.cognitionstreams.load.Latencies;
import io.cognitionstreams.load.KafkaTraffic;

class BenchCommandTest {

    @Test
    void namesTheMeasuredStepsWhoseCpuWentToTheJitBeyondTheShare() {
        List<BenchCommand.Row> rows = List.of(
                row("NO_MEMORY", 1000, 1.91, 0.37, false), // 19 %: warming
                row("FULL", 1000, 1.87, 0.13, false), // 7 %: warming
                row("NO_MEMORY", 2000, 1.33, 0.03, false), // 2 %: warm
                row("FULL", 2000, 2.00, 0.09, false), // 4.5 %: warm
                row("FULL", 500, 3.00, 1.50, true)); // a warm-up that fell behind is not a measured step

        assertThat(BenchCommand.warming(rows, true)).containsExactly("1000/s NO_MEMORY 19 %", "1000/s FULL 7 %");
        assertThat(BenchCommand.warming(rows, false)).containsExactly("1000/s 19 %", "1000/s 7 %");
    }

    /** Where the JVM or /proc does not tell, there is nothing to say. */
    @Test
    void saysNothingWithoutTheJitsFigure() {
        assertThat(BenchCommand.warming(List.of(row("FULL", 1000, Double.NaN, Double.NaN, false),
                row("FULL", 2000, 1.5, Double.NaN, false)), false)).isEmpty();
    }

    @Test
    void eachWorkloadsThroughputIsTheMostItAnsweredAtAnyRateMeasured() {
        List<BenchCommand.Row> rows = List.of(
                answering("NO_MEMORY", 1400, 1386, false),
                answering("FULL", 1400, 1238, false),
                answering("NO_MEMORY", 1600, 1547, false),
                answering("FULL", 1600, 1298, false),
                answering("FULL", 1800, 1900, true)); // a warm-up is not measured

        assertThat(BenchCommand.throughput(rows)).contains("throughput, the most answers a second over the rates: "
                + "NO_MEMORY 1547/s (at 1600/s), FULL 1298/s (at 1600/s); FULL 0.84 of NO_MEMORY");
    }

    /** At one rate the comparison line says it all. */
    @Test
    void saysNothingOfThroughputForOneRate() {
        assertThat(BenchCommand.throughput(List.of(answering("NO_MEMORY", 2000, 1400, false),
                answering("FULL", 2000, 1000, false)))).isEmpty();
    }

    private static BenchCommand.Row answering(String mode, int rate, double perSecond, boolean warmup) {
        return row(mode, rate, perSecond, 1.5, 0.0, warmup);
    }

    private static BenchCommand.Row row(String mode, int rate, double cpu, double jit, boolean warmup) {
        return row(mode, rate, rate, cpu, jit, warmup);
    }

    private static BenchCommand.Row row(String mode, int rate, double perSecond, double cpu, double jit,
                                        boolean warmup) {
        EndToEndBench.Step pipeline = new EndToEndBench.Step(rate, 100, 100, perSecond, new Latencies.Summary(100, 1,
                2, 3, 4), List.of(), 0, 0, cpu, jit, KafkaTraffic.Traffic.NONE);
        EndToEndBench.Step raw = new EndToEndBench.Step(rate, 100, 100, rate, new Latencies.Summary(100, 1, 2, 3,
                4), List.of(), 0, 0, 0.3, 0.0, KafkaTraffic.Traffic.NONE);
        return new BenchCommand.Row(mode, pipeline, raw, warmup);
    }
}
