package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.reliability.RestartRun.OnHanging;
import io.cognitionstreams.testing.RunArgs;

/**
 * The flags of the long runs under bin/, parsed by {@link RunArgs} into each run's own declaration as its main does:
 * help and mistakes stop before anything starts, and the flags that worked before mean what they meant.
 */
class LongRunFlagsTest {

    private record Parsed(OptionalInt exit, String out, String err) {
    }

    @Test
    void helpPrintsEveryFlagWithItsDefaultAndStops() {
        for (String help : List.of("--help", "-h")) {
            Parsed parsed = parse(new BrokerRestartRun.Flags(), help);

            assertThat(parsed.exit()).hasValue(0);
            assertThat(parsed.err()).isEmpty();
            // Unwrapped: where a description breaks depends on its length.
            assertThat(parsed.out().replaceAll("\\s+", " ")).startsWith("Usage: bin/broker-restart")
                    .contains("--requests=N", "Requests to send (default: 20000).")
                    .contains("--rate=R", "(default: 100)")
                    .contains("--downtimes=S", "(default: 5,65,120)")
                    .contains("--max-block=S", "(default: 60)")
                    .contains("--abort-hanging", "-h, --help");
        }
    }

    @Test
    void helpWinsOverOtherFlags() {
        assertThat(parse(new CrashRun.Flags(), "--kills", "3", "--help").exit()).hasValue(0);
        assertThat(parse(new TakeoverRun.Flags(), "3s", "--help").exit()).hasValue(0);
    }

    @Test
    void unknownFlagIsAnErrorWithTheUsage() {
        Parsed parsed = parse(new BrokerRestartRun.Flags(), "--request", "100");

        assertThat(parsed.exit()).hasValue(2);
        assertThat(parsed.out()).isEmpty();
        assertThat(parsed.err()).startsWith("Unknown options: '--request', '100'\n")
                .contains("Usage: bin/broker-restart", "--requests=N");
    }

    @Test
    void strayArgumentIsAnError() {
        Parsed parsed = parse(new SoakRun.Flags(), "10000");

        assertThat(parsed.exit()).hasValue(2);
        assertThat(parsed.err()).startsWith("Unmatched argument at index 0: '10000'");
    }

    @Test
    void flagWithoutItsValueIsAnError() {
        Parsed parsed = parse(new CrashRun.Flags(), "--kills");

        assertThat(parsed.exit()).hasValue(2);
        assertThat(parsed.err()).startsWith("Missing required parameter for option '--kills' (K)")
                .contains("Usage: bin/crash-test");
    }

    @Test
    void valueThatDoesNotParseIsAnError() {
        assertThat(parse(new FailoverRun.Flags(), "--rate", "abc").err())
                .startsWith("Invalid value for option '--rate': 'abc' is not an int");
        assertThat(parse(new TakeoverRun.Flags(), "--seed", "tomorrow").err())
                .startsWith("Invalid value for option '--seed': 'tomorrow' is not a long");
        assertThat(parse(new BrokerRestartRun.Flags(), "--downtimes", "5,1m").exit()).hasValue(2);
    }

    @Test
    void defaultsAreTheOnesBefore() {
        assertThat(filled(new CrashRun.Flags(), "--seed", "1").options())
                .isEqualTo(new CrashRun.Options(50_000, 10, 500, 1));
        assertThat(filled(new SoakRun.Flags(), "--seed", "1").options())
                .isEqualTo(new SoakRun.Options(10_000, 10_000, 500, 1));
        assertThat(filled(new FailoverRun.Flags(), "--seed", "1").options())
                .isEqualTo(new FailoverRun.Options(2, 50, 1, true));
        assertThat(filled(new RestartRun.Flags(), "--seed", "1").options())
                .isEqualTo(new RestartRun.Options(10, 20, 1, OnHanging.FAIL));
        assertThat(filled(new TakeoverRun.Flags(), "--seed", "1").options())
                .isEqualTo(new TakeoverRun.Options(4, 20, 1, List.of()));
        assertThat(filled(new BrokerRestartRun.Flags()).options()).isEqualTo(new BrokerRestartRun.Options(20_000,
                100, List.of(Duration.ofSeconds(5), Duration.ofSeconds(65), Duration.ofSeconds(120)),
                Duration.ofSeconds(60), false));
        assertThat(filled(new StopStartRun.Flags(), "--seed", "1").options()).isEqualTo(new StopStartRun.Options(67,
                20, 1, List.of(StopStartRun.Kind.TERM, StopStartRun.Kind.KILL_APP, StopStartRun.Kind.KILL_ALL)));
    }

    @Test
    void theNewerFlagsOfTheRestartRuns() {
        assertThat(filled(new RestartRun.Flags(), "--seed", "1", "--sessions", "100000", "--wipe-state", "--",
                "--memory-embedder", "static").options()).isEqualTo(new RestartRun.Options(10, 20, 1, OnHanging.FAIL,
                100_000, true, List.of("--memory-embedder", "static")));
        assertThat(filled(new StopStartRun.Flags(), "--kinds", "kill-all,term", "--cycles", "30").options().kinds())
                .containsExactly(StopStartRun.Kind.KILL_ALL, StopStartRun.Kind.TERM);
        Parsed wrong = parse(new StopStartRun.Flags(), "--kinds", "term,kill-broker");
        assertThat(wrong.exit()).hasValue(2);
        assertThat(wrong.err()).contains("'kill-broker' is not term, kill-app or kill-all");
    }

    @Test
    void scaleDefaultsAreIssue35sLoad() {
        ScaleRun.Flags flags = filled(new ScaleRun.Flags());

        assertThat(List.of(flags.warmSessions, flags.warmRate, flags.backlogSessions, flags.sessions, flags.port))
                .containsExactly(20_000, 400, 80_000, 0, 0);
        assertThat(flags.backlogTimeout).isEqualTo(Duration.ofMinutes(90));
        assertThat(filled(new ScaleRun.Flags(), "--backlog-timeout", "PT20M", "--port", "19092").backlogTimeout)
                .isEqualTo(Duration.ofMinutes(20));
    }

    @Test
    void seedDefaultsToTheCurrentTime() {
        long before = System.currentTimeMillis();
        long seed = filled(new CrashRun.Flags()).options().seed();

        assertThat(seed).isBetween(before, System.currentTimeMillis());
    }

    @Test
    void flagsAsTheDocsGiveThem() {
        assertThat(filled(new CrashRun.Flags(), "--requests", "50000", "--kills", "10", "--rate", "500", "--seed",
                "20261123").options()).isEqualTo(new CrashRun.Options(50_000, 10, 500, 20261123));
        assertThat(filled(new BrokerRestartRun.Flags(), "--requests", "1500", "--rate", "50", "--downtimes", "5,20",
                "--max-block", "15").options()).isEqualTo(new BrokerRestartRun.Options(1500, 50,
                List.of(Duration.ofSeconds(5), Duration.ofSeconds(20)), Duration.ofSeconds(15), false));
    }

    @Test
    void aListReplacesItsDefault() {
        assertThat(filled(new BrokerRestartRun.Flags(), "--downtimes", "30").options().downtimes())
                .containsExactly(Duration.ofSeconds(30));
    }

    @Test
    void switchesTurnOnAlone() {
        assertThat(filled(new BrokerRestartRun.Flags(), "--abort-hanging").options().abortHanging()).isTrue();
        assertThat(filled(new RestartRun.Flags(), "--abort-hanging").options().onHanging())
                .isEqualTo(OnHanging.RUN_ABORTS);
        assertThat(filled(new RestartRun.Flags(), "--app-aborts-hanging", "--kills", "4").options())
                .extracting(RestartRun.Options::onHanging, RestartRun.Options::kills)
                .containsExactly(OnHanging.APP_ABORTS, 4);
    }

    @Test
    void theTwoWaysWithAHangingTransactionExcludeEachOther() {
        Parsed parsed = parse(new RestartRun.Flags(), "--abort-hanging", "--app-aborts-hanging");

        assertThat(parsed.exit()).hasValue(2);
        assertThat(parsed.err()).contains("--abort-hanging, --app-aborts-hanging are mutually exclusive");
    }

    @Test
    void flagsAfterDoubleDashGoToTheApp() {
        TakeoverRun.Options options = filled(new TakeoverRun.Flags(), "--kills", "4", "--seed", "7", "--",
                "--session-timeout", "3s", "--standby-replicas", "1").options();

        assertThat(options).isEqualTo(new TakeoverRun.Options(4, 20, 7,
                List.of("--session-timeout", "3s", "--standby-replicas", "1")));
    }

    @Test
    void appFlagsWithoutDoubleDashAreUnknown() {
        assertThat(parse(new TakeoverRun.Flags(), "--session-timeout", "3s").err())
                .startsWith("Unknown option: '--session-timeout'");
    }

    @Test
    void appFlagsBeforeDoubleDashAreAnError() {
        Parsed parsed = parse(new TakeoverRun.Flags(), "4", "--", "--standby-replicas", "1");

        assertThat(parsed.exit()).hasValue(2);
        assertThat(parsed.err()).startsWith("Unmatched argument before --: '4'");
        assertThat(parse(new TakeoverRun.Flags(), "3s").err()).startsWith("Unmatched argument before --: '3s'");
    }

    private static <T> T filled(T flags, String... args) {
        Parsed parsed = parse(flags, args);
        assertThat(parsed.exit()).as(parsed.err()).isEmpty();
        return flags;
    }

    private static Parsed parse(Object flags, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        OptionalInt exit = RunArgs.parse(flags, args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Parsed(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
