package io.cognitionstreams.reliability;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;


import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Kill and restart on the embedded default: {@code bin/cognition run --data-dir D} with the broker inside it, started
 * through the launcher as a user starts it, so a SIGKILL takes the broker down with the app. While requests flow, the
 * child is killed and started again at once on the same data directory; what is measured is the time from the SIGKILL
 * to the first answer (a routed block on a channel, read_committed) of a request sent after it, by an agent whose
 * producer waits for the broker to come back. Each restart is broken down by what the child prints: its broker starting
 * (the new JVM is up), its broker answering, every capability RUNNING. At the end every request must be answered
 * exactly once. A step that stalls is checked for hanging transactions, which a kill can leave on the embedded broker
 * (docs/reliability.md, "Kill and restart"): named in the failure, aborted as an operator would, or left to the app to
 * abort itself ({@code --app-aborts-hanging}: the child runs with a 30 s hanging limit), and the restart reported as
 * stalled. {@code bin/kill-restart} runs {@link #main}; no short form is in the suite, which the broker's defect would
 * make fail now and then (docs/reliability.md).
 *
 * <p>{@link CrashRun} kills the app with the broker outside it; this run is the restart a user of the default sees.
 */
final class RestartRun {

    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    /** How long each step of a restart may take: its first answer, then every capability running. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(2);
    /** How often a step that is late looks for hanging transactions, from this long after it began. */
    private static final Duration HANG_CHECK = Duration.ofSeconds(40);
    /** A transaction silent for this long is hanging: the app's producers time theirs out after 10 s. */
    private static final Duration HANGING_AFTER = Duration.ofSeconds(30);

    /** What a run does about a hanging transaction the broker leaves behind after a kill. */
    enum OnHanging {
        /** Fail, naming it. */
        FAIL,
        /** Abort it as an operator would, and go on. */
        RUN_ABORTS,
        /** Wait for the app to abort it itself (its TransactionWatch), and go on. */
        APP_ABORTS
    }

    /**
     * @param rate      requests per second the agent sends
     * @param seed      of the pause between the answers' return and the next kill (1 to 5 s)
     * @param onHanging what to do about a hanging transaction (docs/reliability.md, "Kill and restart")
     * @param sessions  sessions loaded before the first kill, two requests each ({@link Preload})
     * @param wipeState whether each restart starts without the state stores (their changelogs restore them)
     * @param appArgs   more `cognition run` flags
     */
    record Options(int kills, int rate, long seed, OnHanging onHanging, int sessions, boolean wipeState,
                   List<String> appArgs) {

        Options(int kills, int rate, long seed, OnHanging onHanging) {
            this(kills, rate, seed, onHanging, 0, false, List.of());
        }
    }

    /**
     * Seconds from a SIGKILL to each step of the restart: the new JVM up (its command parsed, its broker starting),
     * the broker answering, every capability RUNNING, and the first answer to a request sent after the kill. The
     * first answer may come before every capability is RUNNING: one that does not lie on a request's path (the
     * council, time travel) may still be restoring its stores. A restart that stalled on hanging transactions
     * names them; its times say nothing about a restart then.
     */
    record Restart(double jvmUp, double brokerUp, double running, double firstAnswer,
                   List<OpenTransaction> aborted, Restored restored) {
        @Override
        public String toString() {
            return String.format("JVM up %.1f s, broker up %.1f s, running %.1f s, first answer %.1f s%s%s", jvmUp,
                    brokerUp, running, firstAnswer, restored.records() == 0 ? "" : String.format("; restored %,d "
                            + "records, the longest capability's restore %.1f s", restored.records(),
                            restored.seconds()), aborted.isEmpty() ? ""
                            : "; stalled on hanging transactions, aborted: " + aborted);
        }
    }

    /**
     * What the capabilities say they restored in a start (the app's RestoreLog lines): records in all, and the
     * longest restore of one capability, from its first store's start to its last's end.
     */
    record Restored(long records, double seconds) {

        private static final Pattern LINE = Pattern.compile("having restored (\\d+) records into .*? in (\\d+) ms");

        static Restored from(String log) {
            long records = 0;
            long longest = 0;
            Matcher line = LINE.matcher(log);
            while (line.find()) {
                records += Long.parseLong(line.group(1));
                longest = Math.max(longest, Long.parseLong(line.group(2)));
            }
            return new Restored(records, longest / 1e3);
        }
    }

    /** @param appAborts the hanging transactions the app says (in its log) it aborted itself */
    record Report(List<Restart> restarts, Ledger.Verdict verdict, Duration elapsed, long appAborts) {

        /** The restarts that did not stall on a hanging transaction, whose times are a restart's. */
        List<Restart> clean() {
            return restarts.stream().filter(restart -> restart.aborted().isEmpty()).toList();
        }
    }

    private RestartRun() {
    }

    static Report run(Path workDir, Options options, PrintStream log) throws Exception {
        long started = System.nanoTime();
        String run = "restart-" + UUID.randomUUID().toString().substring(0, 8);
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        int port = ChildApp.freePort();
        int controllerPort = ChildApp.freePort();
        Path dataDir = workDir.resolve("data");
        List<String> args = new ArrayList<>(List.of("--data-dir", dataDir.toString(), "--port", String.valueOf(port),
                "--controller-port", String.valueOf(controllerPort)));
        if (options.onHanging() == OnHanging.APP_ABORTS) {
            // The app's producers time their transactions out after 10 s at most: 30 s of silence is hanging.
            args.addAll(List.of("--hanging-transaction-after", HANGING_AFTER.toSeconds() + "s"));
        }
        args.addAll(options.appArgs());
        String bootstrap = "127.0.0.1:" + port;
        Path appLog = workDir.resolve("app.log");
        log.printf("kill-restart run %s: %d kills, %d requests/s, seed %d, app log %s%n", run, options.kills(),
                options.rate(), options.seed(), appLog);
        Random random = new Random(options.seed());
        Stalls stalls = new Stalls(bootstrap, topics, options.onHanging(), log);
        ChildApp app = ChildApp.launch(appLog, Optional.empty(), args);
        Traffic traffic = null;
        try {
            app.requireRunning(START_TIMEOUT);
            if (options.sessions() > 0) {
                Preload.sessions(bootstrap, topics, options.sessions(), log);
            }
            traffic = Traffic.agent(bootstrap, topics.requests, run, options.rate());
            List<Restart> restarts = new ArrayList<>();
            try (Answers answers = new Answers(bootstrap, topics, run)) {
                stalls.await("the first answer", () -> answers.answeredFrom(0));
                log.printf("answering at %.1f s%n", seconds(started));
                for (int k = 1; k <= options.kills(); k++) {
                    Thread.sleep(1_000 + random.nextInt(4_000));
                    long firstAfter = traffic.sent();
                    long killed = System.nanoTime();
                    app.kill();
                    long logFrom = Files.size(appLog);
                    if (options.wipeState()) {
                        Preload.wipeStores(dataDir.resolve("streams"));
                    }
                    ChildApp restarted = ChildApp.launch(appLog, Optional.empty(), args);
                    app = restarted;
                    List<OpenTransaction> aborted = new ArrayList<>(stalls.await("an answer after kill " + k,
                            () -> answers.answeredFrom(firstAfter)));
                    long answered = answers.lastAnswered();
                    aborted.addAll(stalls.await("every capability running after kill " + k,
                            () -> restarted.awaitRunning(Duration.ofMillis(100))));
                    Restart restart = new Restart(since(killed, app.printed(ChildApp.BROKER_STARTING)),
                            since(killed, app.printed(ChildApp.BROKER_UP)),
                            since(killed, app.printed(ChildApp.RUNNING)), (answered - killed) / 1e9, aborted,
                            Restored.from(ChildApp.logSince(appLog, logFrom)));
                    restarts.add(restart);
                    log.printf("kill %d/%d at %.1f s (%d sent): %s%n", k, options.kills(),
                            (killed - started) / 1e9, firstAfter, restart);
                }
            }
            traffic.stop();
            traffic.await();
            Map<String, String> prompts = Traffic.prompts(Workload.NO_MEMORY, run,
                    traffic.delivered());
            try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
                ledger.awaitComplete(prompts, ANSWER_TIMEOUT);
                // A clean stop, so nothing is in flight; the broker goes with the app, so it is started alone on
                // the same data to read what was committed: any duplicate would now be there.
                log.printf("all %d answered at %.1f s; stopping the app (exit %d)%n", prompts.size(),
                        seconds(started), app.stop());
                try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerSettings(
                        dataDir.resolve("kafka"), port, controllerPort, Duration.ofSeconds(60)))) {
                    ledger.catchUp();
                    long appAborts;
                    try (var lines = Files.lines(appLog)) {
                        appAborts = lines.filter(line -> line.contains("aborted the hanging transaction")).count();
                    }
                    Report report = new Report(restarts, ledger.verify(prompts),
                            Duration.ofNanos(System.nanoTime() - started), appAborts);
                    log.printf("%s in %d s%n", report.verdict(), report.elapsed().toSeconds());
                    return report;
                }
            }
        } finally {
            // Nothing outlives a failed run: neither the agent nor a child with its broker.
            if (traffic != null) {
                traffic.stop();
            }
            app.kill();
        }
    }

    /**
     * Waits for a step of a restart. A restart normally answers well within a minute; past {@link #HANG_CHECK}
     * without, and every {@code HANG_CHECK} after, it looks for hanging transactions: aborted (by the run or by the
     * app) and waited past when allowed, else named in the failure.
     */
    record Stalls(String bootstrap, Topics topics, OnHanging onHanging, PrintStream log, Duration timeout) {

        Stalls(String bootstrap, Topics topics, OnHanging onHanging, PrintStream log) {
            this(bootstrap, topics, onHanging, log, ANSWER_TIMEOUT);
        }

        interface Step {
            boolean done() throws Exception;
        }

        /** @return the hanging transactions aborted on the way, by the run or by the app */
        List<OpenTransaction> await(String what, Step step) throws Exception {
            List<OpenTransaction> aborted = new ArrayList<>();
            long start = System.nanoTime();
            long nextCheck = start + HANG_CHECK.toNanos();
            while (!step.done()) {
                long now = System.nanoTime();
                if (now > start + timeout.toNanos()) {
                    throw new AssertionError(what + ": nothing within " + timeout + ", no hanging transaction");
                }
                if (now > nextCheck) {
                    nextCheck = now + HANG_CHECK.toNanos();
                    List<OpenTransaction> hanging;
                    try {
                        hanging = Hanging.find(bootstrap, topics, HANGING_AFTER);
                    } catch (ExecutionException | TimeoutException e) {
                        // The broker is not answering yet (still starting, on a loaded machine): look again later.
                        log.printf("%s: late, and the broker does not tell its transactions yet: %s%n", what, e);
                        continue;
                    }
                    if (hanging.isEmpty()) {
                        continue;
                    }
                    switch (onHanging) {
                        case FAIL -> throw new AssertionError(what + ": stalled on hanging transactions the broker "
                                + "lost the markers of (docs/reliability.md, \"Kill and restart\"): " + hanging);
                        case RUN_ABORTS -> {
                            log.printf("%s: stalled on hanging transactions; aborting them: %s%n", what, hanging);
                            Hanging.abort(bootstrap, hanging);
                        }
                        case APP_ABORTS -> log.printf("%s: stalled on hanging transactions; waiting for the app "
                                + "to abort them: %s%n", what, hanging);
                    }
                    hanging.stream().filter(transaction -> !aborted.contains(transaction)).forEach(aborted::add);
                }
            }
            return aborted;
        }
    }

    private static double since(long killed, OptionalLong at) {
        return at.isPresent() ? (at.getAsLong() - killed) / 1e9 : Double.NaN;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /** The median and maximum of one figure over the restarts (or kills). */
    static <T> String summary(List<T> runs, String name, ToDoubleFunction<T> figure) {
        if (runs.isEmpty()) {
            return name + ": nothing to tell";
        }
        List<Double> sorted = runs.stream().map(figure::applyAsDouble).sorted(Comparator.naturalOrder())
                .toList();
        double median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        return String.format("%s p50 %.1f s, max %.1f s", name, median, sorted.get(sorted.size() - 1));
    }

    @Command(name = "bin/kill-restart", description = "SIGKILLs `cognition run --data-dir D`, broker and all, while "
            + "requests flow and starts it again on the same data; exit 0 when every request is answered exactly "
            + "once. A hanging transaction left by a kill fails the run unless one of the two flags below says else.")
    static final class Flags {

        @Option(names = "--kills", paramLabel = "N", defaultValue = "10",
                description = "SIGKILLs of the app (default: ${DEFAULT-VALUE}).")
        int kills;

        @Option(names = "--rate", paramLabel = "R", defaultValue = "20",
                description = "Requests per second (default: ${DEFAULT-VALUE}).")
        int rate;

        @Mixin
        RunArgs.Seed seed;

        /** Null when neither flag is given: a hanging transaction fails the run. */
        @ArgGroup
        Hanging hanging;

        static final class Hanging {

            @Option(names = "--abort-hanging", required = true, description = "Abort it as an operator would and go "
                    + "on, reporting that restart as stalled and leaving it out of the figures.")
            boolean runAborts;

            @Option(names = "--app-aborts-hanging", required = true,
                    description = "Leave it to the app (30 s hanging limit) and report what the app aborted.")
            boolean appAborts;
        }

        @Option(names = "--sessions", paramLabel = "N", defaultValue = "0",
                description = "Sessions of two requests each, every one in a memory scope of its own, answered "
                        + "before the first kill, so that a restart has that much state (default: ${DEFAULT-VALUE}).")
        int sessions;

        @Option(names = "--wipe-state", description = "Delete the state stores before each restart (the app's and "
                + "each Kafka Streams' process ids kept): every store is restored from its changelog.")
        boolean wipeState;

        @Parameters(paramLabel = "RUN-FLAGS", description = "After --: more `cognition run` flags, e.g. -- "
                + "--memory-embedder static.")
        List<String> appArgs = new ArrayList<>();

        Options options() {
            OnHanging onHanging = hanging == null ? OnHanging.FAIL
                    : hanging.runAborts ? OnHanging.RUN_ABORTS : OnHanging.APP_ABORTS;
            return new Options(kills, rate, seed.value, onHanging, sessions, wipeState, List.copyOf(appArgs));
        }
    }

    /** {@code bin/kill-restart}: the long form. */
    public static void main(String[] args) throws Exception {
        Options options = RunArgs.parseOrExit(new Flags(), args).options();
        Report report = run(Files.createTempDirectory("cognition-restart"), options, System.out);
        List<Restart> clean = report.clean();
        System.out.printf("%d restarts, %d of them stalled on hanging transactions (aborted, not timed); the app "
                        + "aborted %d hanging transactions itself%n", report.restarts().size(),
                report.restarts().size() - clean.size(), report.appAborts());
        System.out.println(summary(clean, "kill to JVM up", Restart::jvmUp));
        System.out.println(summary(clean, "kill to broker up", Restart::brokerUp));
        System.out.println(summary(clean, "kill to running", Restart::running));
        System.out.println(summary(clean, "kill to first answer", Restart::firstAnswer));
        if (clean.stream().anyMatch(restart -> restart.restored().records() > 0)) {
            System.out.println(summary(clean, "longest restore of a capability", restart -> restart.restored()
                    .seconds()));
        }
        System.exit(report.verdict().ok() ? 0 : 1);
    }
}
