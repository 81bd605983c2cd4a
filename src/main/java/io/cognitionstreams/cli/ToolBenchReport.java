package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

import io.cognitionstreams.load.EndToEndBench;
import io.cognitionstreams.load.Latencies;
import io.cognitionstreams.load.StepServer;
import io.cognitionstreams.load.ToolStepBench;

/** What `cognition bench --tools` prints: a row per rate, each hop's latency per rate, and the exactly-once counts. */
final class ToolBenchReport {

    /** One offered rate: the tool steps and the pass-through at as many calls; {@code warmup} marks a warm-up. */
    record Row(ToolStepBench.Step tools, EndToEndBench.Step raw, Duration slow, boolean warmup) {
        boolean complete() {
            return tools.complete() && raw.answered() == raw.sent() && raw.doubled().isEmpty();
        }
    }

    private ToolBenchReport() {
    }

    static void print(PrintWriter out, List<Row> rows, String header, Duration drainTimeout) {
        out.println(header);
        out.printf("tool: %s, a line appended to a file, neither read-only nor idempotent: its STARTED mark is "
                + "committed before it runs%n", StepServer.CALLED);
        out.println("step overhead: approval seen on tool.decisions -> result seen on tool.results, minus the tool's "
                + "own time (read_committed, ms)");
        out.printf("%8s %8s %6s | %-42s | %-36s%n", "", "", "", "tool steps", "pass-through");
        out.printf("%8s %8s %6s | %7s %6s %6s %6s %7s %5s | %7s %6s %6s %6s %7s%n", "calls/s", "sessions", "calls",
                "steps/s", "p50", "p95", "p99", "max", "open", "calls/s", "p50", "p95", "p99", "open");
        for (Row row : rows) {
            ToolStepBench.Step tools = row.tools();
            Latencies.Summary overhead = tools.overhead();
            EndToEndBench.Step raw = row.raw();
            out.printf("%8s %8d %6d | %7.0f %6d %6d %6d %7d %5d | %7.0f %6d %6d %6d %7d%n",
                    tools.offeredRate() + (row.warmup() ? "*" : ""), tools.sessions(), tools.expected(),
                    tools.perSecond(), overhead.p50(), overhead.p95(), overhead.p99(), overhead.max(), tools.open(),
                    raw.perSecond(), raw.latency().p50(), raw.latency().p95(), raw.latency().p99(),
                    raw.sent() - raw.answered());
        }
        out.println("each hop, p50 / p95 / p99 (ms), by offered calls/s:");
        StringBuilder head = new StringBuilder(String.format("  %-13s", "hop"));
        rows.forEach(row -> head.append(String.format(" %20s", row.tools().offeredRate() + (row.warmup() ? "*"
                : "") + "/s")));
        out.println(head.append("  path"));
        for (ToolStepBench.Hop hop : ToolStepBench.Hop.values()) {
            StringBuilder line = new StringBuilder(String.format("  %-13s", hop.label()));
            for (Row row : rows) {
                Latencies.Summary summary = row.tools().hops().get(hop);
                line.append(String.format(" %20s", summary.count() == 0 ? "-"
                        : summary.p50() + " / " + summary.p95() + " / " + summary.p99()));
            }
            out.println(line.append("  ").append(hop.path()));
        }
        for (Row row : rows) {
            row.tools().duringSlowCall().ifPresent(during -> out.printf("%d/s: while one session's first call ran "
                            + "%d ms, %d calls of the other sessions were approved: overhead p50 %d, p95 %d, p99 %d, "
                            + "max %d ms%n", row.tools().offeredRate(), row.slow().toMillis(), during.count(),
                    during.p50(), during.p95(), during.p99(), during.max()));
        }
        int expected = rows.stream().mapToInt(row -> row.tools().expected()).sum();
        int results = rows.stream().mapToInt(row -> row.tools().results()).sum();
        int runs = rows.stream().mapToInt(row -> row.tools().counts().toolRuns()).sum();
        out.printf("exactly once: %d calls expected, %d results, %d tool runs; doubled: %d calls, %d decisions, %d "
                        + "outcomes, %d results, %d requests, %d tool runs; %d unknown outcomes, %d other failures, %d "
                        + "denied%n", expected, results, runs, sum(rows, ToolStepBench.Counts::callsDoubled),
                sum(rows, ToolStepBench.Counts::decisionsDoubled), sum(rows, ToolStepBench.Counts::outcomesDoubled),
                sum(rows, ToolStepBench.Counts::resultsDoubled), sum(rows, ToolStepBench.Counts::requestsDoubled),
                sum(rows, ToolStepBench.Counts::toolRunsDoubled), sum(rows, ToolStepBench.Counts::unknownOutcomes),
                sum(rows, counts -> counts.notSucceeded() - counts.unknownOutcomes()),
                sum(rows, ToolStepBench.Counts::denied));
        if (!rows.stream().allMatch(Row::complete)) {
            Row last = rows.get(rows.size() - 1);
            out.printf("not met at %d calls/s%s: calls without a result %d s after the last session started "
                    + "(open), or a record or run doubled, or a call that did not succeed; no higher rate was tried%n",
                    last.tools().offeredRate(), last.warmup() ? " (* the warm-up)" : "", drainTimeout.toSeconds());
        }
        out.flush();
    }

    private static int sum(List<Row> rows, java.util.function.ToIntFunction<ToolStepBench.Counts> count) {
        return rows.stream().mapToInt(row -> count.applyAsInt(row.tools().counts())).sum();
    }
}
