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

    /**
     * One side of a row once every request was answered: its figures, then open 0, the CPU per answer and the JIT's
     * part of it.
     */
    private static final String ANSWERED_ALL = ".*\\s0 +\\d+\\.\\d\\d +\\d+\\.\\d\\d ?";

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

    /** Two workloads: each rate under both in turn, on one deployment, and memory's cost against none. */
    @Test
    void measuresMemoryOnAgainstMemoryOffSideBySide(EmbeddedKafkaBroker broker) {
        Cli bench = Cli.run("bench", "--bootstrap-servers", broker.bootstrapServers(), "--rates", "20",
                "--duration", "2s", "--warmup", "1s", "--workload", "NO_MEMORY,FULL");

        assertThat(bench.exitCode()).as(bench.err()).isZero();
        // Each row ends its pipeline's and its pass-through's cells with open 0, the CPU per answer and the JIT's.
        assertThat(bench.out()).contains("workload NO_MEMORY,FULL")
                .containsPattern("(?m)^\\s+20\\s+40 NO_MEMORY\\s*\\|" + ANSWERED_ALL + "\\|" + ANSWERED_ALL + "$")
                .containsPattern("(?m)^\\s+20\\s+40 FULL\\s+\\|" + ANSWERED_ALL + "\\|" + ANSWERED_ALL + "$")
                .containsPattern("FULL vs NO_MEMORY at 20/s: pipeline answers/s [-+]\\d+\\.\\d %, p99 [-+]\\d+ ms, "
                        + "cpu per answer [-+]\\d+\\.\\d % \\([-+]\\d+\\.\\d % without the JIT's\\)")
                .containsPattern("(?m)^  at 20/s NO_MEMORY: \\d+\\.\\d\\d records, \\d+\\.\\d\\d KB: "
                        + "[-.<>\\w]+ \\d+\\.\\d\\d, ")
                // Memory's entries go to cognition.memory, which memory off does not write.
                .containsPattern("(?m)^  kafka per answer: \\+\\d+\\.\\d\\d records \\(\\+\\d+\\.\\d %\\), .*"
                        + "cognition\\.memory \\+\\d")
                .contains("of this JVM (app and bench clients)")
                // The broker is the test's, not the bench's: its requests are not the bench's to count.
                .doesNotContain("broker requests");
    }

    /**
     * --tools: sessions that take their steps of tool call, result and next turn through the real gatekeeper and
     * executor, each hop timed, every call answered and its tool run once.
     */
    @Test
    void measuresToolStepsHopByHopAndCountsEveryRunOnce(EmbeddedKafkaBroker broker) {
        Cli bench = Cli.run("bench", "--tools", "--bootstrap-servers", broker.bootstrapServers(), "--rates", "10",
                "--duration", "3s", "--warmup", "0s", "--steps", "3");

        assertThat(bench.exitCode()).as(bench.out() + bench.err()).isZero();
        // 10 calls/s over 3 s: 10 sessions of 3 steps, every call answered (open 0) on both sides.
        assertThat(bench.out()).contains("cognition bench --tools: 3 steps a session", "mcp__steps__step")
                .containsPattern("(?m)^\\s+10\\s+10\\s+30 \\|.*\\s0 \\|.*\\s0$")
                .containsPattern("(?m)^  decision +\\d+ / \\d+ / \\d+  call on tool.calls")
                .containsPattern("(?m)^   before tool +\\d+ / \\d+ / \\d+  approval -> the tool starts")
                .containsPattern("(?m)^   after tool +\\d+ / \\d+ / \\d+  the tool ends -> outcome seen")
                .containsPattern("(?m)^  next request +\\d+ / \\d+ / \\d+  request -> its call")
                .contains("exactly once: 30 calls expected, 30 results, 30 tool runs; doubled: 0 calls, 0 decisions, "
                        + "0 outcomes, 0 results, 0 requests, 0 tool runs; 0 unknown outcomes, 0 other failures, 0 "
                        + "denied");
    }

    /** --secure starts two embedded brokers of its own (it is refused with --bootstrap-servers). */
    @Test
    void measuresSecureModeSideBySideWithPlainOnItsOwnBrokers() {
        Cli bench = Cli.run("bench", "--secure", "--rates", "20", "--duration", "2s", "--warmup", "1s",
                "--workload", "NO_MEMORY");

        assertThat(bench.exitCode()).as(bench.err()).isZero();
        // Both rows answered in full (open 0): the agent could send, the operator read, the app run as User:app.
        assertThat(bench.out())
                .containsPattern("(?m)^\\s+20\\s+40 plain\\s+\\|" + ANSWERED_ALL + "\\|" + ANSWERED_ALL + "$")
                .containsPattern("(?m)^\\s+20\\s+40 secure\\s+\\|" + ANSWERED_ALL + "\\|" + ANSWERED_ALL + "$")
                .containsPattern("secure vs plain at 20/s: pipeline answers/s [-+]\\d+\\.\\d %")
                // Its own brokers: the requests they handled per answer, and secure's against plain's.
                .containsPattern("(?m)^    \\d+\\.\\d\\d broker requests: .*Produce \\d+\\.\\d\\d")
                .containsPattern("(?m)^    [-+]\\d+\\.\\d\\d broker requests \\([-+]\\d+\\.\\d %\\): ")
                .contains("two brokers, two apps and bench clients");
        assertThat(bench.err()).contains("secured: ").contains("(secure): embedded broker");
    }

    @Test
    void aWorkloadIsComparedOnlyWithAnotherOnThePlainDeployment() {
        Cli twice = Cli.run("bench", "--workload", "FULL,FULL");
        Cli secure = Cli.run("bench", "--secure", "--workload", "NO_MEMORY,FULL");

        assertThat(twice.exitCode()).isEqualTo(2);
        assertThat(twice.err()).contains("--workload takes each workload once");
        assertThat(secure.exitCode()).isEqualTo(2);
        assertThat(secure.err()).contains("two only on the plain deployment");
    }

    @Test
    void secureNeedsTheEmbeddedBroker() {
        Cli bench = Cli.run("bench", "--secure", "--bootstrap-servers", "localhost:1");

        assertThat(bench.exitCode()).isEqualTo(2);
        assertThat(bench.err()).contains("--secure compares against a secured embedded broker");
    }
}
