package io.cognitionstreams.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.CommonClientConfigs;

import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.health.TransactionWatch;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Stop and start cycles of {@code bin/cognition run} (through the launcher, as a user starts it) while an agent keeps
 * sending, of three kinds: a clean stop (SIGTERM, the app's shutdown hook closes it and its embedded broker), a SIGKILL
 * of the app alone (its broker runs in this JVM and survives), and a SIGKILL of everything (the broker inside the app).
 * After each stop the app starts again at once on the same data. Each cycle counts the hanging transactions the stop
 * left: open transactions their coordinator has finished with ({@link TransactionWatch#abandoned}, looked at once every
 * capability runs again), and those the app says it settled, aborted or reported (its log). It times the stop to the
 * first answer of a request sent after it, broken down as {@link RestartRun} does. At the end of each phase every
 * request must be answered exactly once: lost and doubled answers are counted. {@code bin/stop-start} runs
 * {@link #main}; the figures are in docs/reliability.md ("Stop and start"). Each stop waits until the app keeps up (a
 * request answered within 2 s), so that no backlog counts in the restart after it.
 *
 * <p>The cycles of the embedded deployment (clean stops and kills of everything) alternate on one data directory;
 * the kills of the app alone run after them, on a broker of this JVM.
 */
final class StopStartRun {

    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(5);
    /** The app's own limit for the judgment of what its coordinator's log cannot tell: its producers time out at 10 s. */
    private static final String HANGING_AFTER = "30s";
    private static final Pattern SETTLED = Pattern.compile("settled the hanging transaction of producer (\\d+) epoch "
            + "(\\d+) \\(.*?\\) on (\\S+) as");
    private static final Pattern ABORTED = Pattern.compile("aborted the hanging transaction of producer (\\d+) epoch "
            + "(\\d+) .*?discarded its records on \\[(.*?)\\]");
    private static final Pattern REPORTED = Pattern.compile("hanging transaction of producer (\\d+) epoch (\\d+) on "
            + "\\[(.*?)\\]");

    /** How a cycle stops the app. */
    enum Kind {
        /** SIGTERM: the app stops cleanly, its embedded broker with it. */
        TERM("term"),
        /** SIGKILL of the app alone; its broker, outside it, survives. */
        KILL_APP("kill-app"),
        /** SIGKILL of the app with its embedded broker inside. */
        KILL_ALL("kill-all");

        final String flag;

        Kind(String flag) {
            this.flag = flag;
        }
    }

    /** @param cycles of each kind */
    record Options(int cycles, int rate, long seed, List<Kind> kinds) {
    }

    /**
     * One stop and start. Times are seconds from the signal; NaN where the step does not exist (a kill takes no
     * time to stop; without an embedded broker nothing starts one).
     *
     * @param hanging the hanging transactions it left, as {@code producer/epoch/partition}: seen abandoned, or
     *                settled, aborted or reported by the app
     */
    record Cycle(Kind kind, int number, double stopped, double jvmUp, double brokerUp, double running,
                 double firstAnswer, Set<String> seen, Set<String> appSaid) {

        /** "-" for a step that does not exist: the app alone started no broker. */
        private static String seconds(double value) {
            return Double.isNaN(value) ? "-" : String.format("%.1f s", value);
        }

        Set<String> hanging() {
            Set<String> all = new TreeSet<>(seen);
            all.addAll(appSaid);
            return all;
        }

        @Override
        public String toString() {
            return String.format("%s%s, JVM up %s, broker up %s, running %s, first answer %s; "
                            + "hanging transactions: %d%s", kind.flag, Double.isNaN(stopped) ? ""
                            : " (stopped in " + seconds(stopped) + ")", seconds(jvmUp), seconds(brokerUp),
                    seconds(running), seconds(firstAnswer), hanging().size(), hanging().isEmpty() ? ""
                            : " " + hanging() + " (seen open by the run: " + seen.size() + ", settled, aborted or "
                            + "reported by the app: " + appSaid.size() + ")");
        }
    }

    record Phase(String name, List<Cycle> cycles, Ledger.Verdict verdict, Path log) {
    }

    record Report(List<Phase> phases, Duration elapsed) {
        boolean ok() {
            return phases.stream().allMatch(phase -> phase.verdict().ok());
        }
    }

    private StopStartRun() {
    }

    static Report run(Path workDir, Options options, PrintStream log) throws Exception {
        long started = System.nanoTime();
        Random random = new Random(options.seed());
        log.printf("stop-start run: %d cycles of each of %s, %d requests/s, seed %d%n", options.cycles(),
                options.kinds().stream().map(kind -> kind.flag).toList(), options.rate(), options.seed());
        List<Phase> phases = new ArrayList<>();
        List<Kind> embedded = options.kinds().stream().filter(kind -> kind != Kind.KILL_APP).toList();
        if (!embedded.isEmpty()) {
            phases.add(new Deployment(workDir.resolve("embedded"), options, random, log, started)
                    .run(embedded, null));
        }
        if (options.kinds().contains(Kind.KILL_APP)) {
            Path dir = workDir.resolve("broker-apart");
            try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerSettings(dir.resolve("kafka"), 0, 0,
                    Duration.ofSeconds(60)))) {
                phases.add(new Deployment(dir, options, random, log, started).run(List.of(Kind.KILL_APP), broker));
            }
        }
        Report report = new Report(phases, Duration.ofNanos(System.nanoTime() - started));
        print(report, log);
        return report;
    }

    /** One data directory, one application, cycles of the given kinds in turn, then the ledger. */
    private static final class Deployment {

        private final Path dir;
        private final Options options;
        private final Random random;
        private final PrintStream log;
        private final long started;
        private final String run = "stops-" + UUID.randomUUID().toString().substring(0, 8);
        private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        private final Path appLog;

        Deployment(Path dir, Options options, Random random, PrintStream log, long started) {
            this.dir = dir;
            this.options = options;
            this.random = random;
            this.log = log;
            this.started = started;
            this.appLog = dir.resolve("app.log");
        }

        /** @param broker the broker outside the app, or null for the app's own */
        Phase run(List<Kind> kinds, EmbeddedKafkaBroker broker) throws Exception {
            Files.createDirectories(dir);
            List<String> args;
            String bootstrap;
            int port = ChildApp.freePort();
            int controllerPort = ChildApp.freePort();
            if (broker == null) {
                bootstrap = "127.0.0.1:" + port;
                args = List.of("--data-dir", dir.resolve("data").toString(), "--port", String.valueOf(port),
                        "--controller-port", String.valueOf(controllerPort), "--hanging-transaction-after",
                        HANGING_AFTER);
            } else {
                bootstrap = broker.bootstrapServers();
                args = List.of("--bootstrap-servers", bootstrap, "--application-id", run, "--state-dir",
                        dir.resolve("state").toString(), "--hanging-transaction-after", HANGING_AFTER);
            }
            String name = broker == null ? "embedded broker" : "broker apart";
            log.printf("%s: %s, app log %s%n", name, kinds.stream().map(kind -> kind.flag).toList(), appLog);
            RestartRun.Stalls stalls = new RestartRun.Stalls(bootstrap, topics, RestartRun.OnHanging.APP_ABORTS,
                    log, ANSWER_TIMEOUT);
            ChildApp app = ChildApp.launch(appLog, Optional.empty(), args);
            Traffic traffic = null;
            List<Cycle> cycles = new ArrayList<>();
            try (TransactionWatch watch = new TransactionWatch(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap), run + "-soak", bootstrap, topics.all().stream().map(Topic::name).toList(),
                    Duration.ofMinutes(15), id -> false, false)) {
                app.requireRunning(START_TIMEOUT);
                traffic = Traffic.agent(bootstrap, topics.requests, run, options.rate());
                try (Answers answers = new Answers(bootstrap, topics, run)) {
                    stalls.await("the first answer", () -> answers.answeredFrom(0));
                    int total = options.cycles() * kinds.size();
                    for (int n = 1; n <= total; n++) {
                        Kind kind = kinds.get((n - 1) % kinds.size());
                        Thread.sleep(1_000 + random.nextInt(4_000));
                        // Stopped only once the app keeps up again: a backlog would count in the next restart.
                        FailoverRun.settle(answers, traffic, stalls);
                        String load = FailoverRun.loadAverage();
                        long firstAfter = traffic.sent();
                        long logFrom = Files.size(appLog);
                        long signalled = System.nanoTime();
                        double stopped = Double.NaN;
                        if (kind == Kind.TERM) {
                            app.stop();
                            stopped = seconds(signalled);
                        } else {
                            app.kill();
                        }
                        ChildApp restarted = ChildApp.launch(appLog, Optional.empty(), args);
                        app = restarted;
                        stalls.await(kind.flag + " " + n + ": an answer", () -> answers.answeredFrom(firstAfter));
                        long answered = answers.lastAnswered();
                        stalls.await(kind.flag + " " + n + ": every capability running",
                                () -> restarted.awaitRunning(Duration.ofMillis(100)));
                        Set<String> seen = new TreeSet<>();
                        for (OpenTransaction transaction : watch.abandoned()) {
                            seen.add(transaction.producerId() + "/" + transaction.producerEpoch() + "/"
                                    + transaction.topic() + "-" + transaction.partition());
                        }
                        // What the app says of the stop before this start shows in this start's log.
                        Cycle cycle = new Cycle(kind, n, stopped, since(signalled,
                                app.printed(ChildApp.BROKER_STARTING)), since(signalled,
                                app.printed(ChildApp.BROKER_UP)), since(signalled, app.printed(ChildApp.RUNNING)),
                                (answered - signalled) / 1e9, seen, appSaid(logFrom));
                        cycles.add(cycle);
                        log.printf("cycle %d/%d at %.1f s (%d sent, load %s): %s%n", n, total, seconds(started),
                                firstAfter, load, cycle);
                    }
                }
                traffic.stop();
                traffic.await();
                Map<String, String> prompts = Traffic.prompts(Workload.NO_MEMORY, run,
                        traffic.delivered());
                Ledger.Verdict verdict;
                try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
                    ledger.awaitComplete(prompts, ANSWER_TIMEOUT);
                    log.printf("%s: all %d answered at %.1f s; stopping the app (exit %d)%n", name, prompts.size(),
                            seconds(started), app.stop());
                    if (broker == null) {
                        // The broker stopped with the app: started alone on its data to read what was committed.
                        try (EmbeddedKafkaBroker alone = EmbeddedKafkaBroker.start(new BrokerSettings(
                                dir.resolve("data").resolve("kafka"), port, controllerPort,
                                Duration.ofSeconds(60)))) {
                            ledger.catchUp();
                            verdict = ledger.verify(prompts);
                        }
                    } else {
                        ledger.catchUp();
                        verdict = ledger.verify(prompts);
                    }
                }
                log.printf("%s: %s; lost %d, doubled %d%n", name, verdict, verdict.lost(), verdict.doubled());
                return new Phase(name, cycles, verdict, appLog);
            } finally {
                if (traffic != null) {
                    traffic.stop();
                }
                app.kill();
            }
        }

        /** The hanging transactions the app logged since {@code from}: settled, aborted or reported. */
        private Set<String> appSaid(long from) throws IOException {
            String text = ChildApp.logSince(appLog, from);
            Set<String> said = new TreeSet<>();
            for (Pattern pattern : List.of(SETTLED, ABORTED, REPORTED)) {
                Matcher matcher = pattern.matcher(text);
                while (matcher.find()) {
                    for (String partition : matcher.group(3).split(",\\s*")) {
                        said.add(matcher.group(1) + "/" + matcher.group(2) + "/"
                                + partition.replaceAll(" producer.*$", "").trim());
                    }
                }
            }
            return said;
        }

        private double seconds(long since) {
            return (System.nanoTime() - since) / 1e9;
        }
    }

    private static double since(long signalled, OptionalLong at) {
        return at.isPresent() ? (at.getAsLong() - signalled) / 1e9 : Double.NaN;
    }

    private static void print(Report report, PrintStream log) {
        Map<Kind, List<Cycle>> byKind = new EnumMap<>(Kind.class);
        report.phases().forEach(phase -> phase.cycles().forEach(cycle ->
                byKind.computeIfAbsent(cycle.kind(), kind -> new ArrayList<>()).add(cycle)));
        byKind.forEach((kind, cycles) -> {
            long hanging = cycles.stream().mapToLong(cycle -> cycle.hanging().size()).sum();
            long cyclesWith = cycles.stream().filter(cycle -> !cycle.hanging().isEmpty()).count();
            log.printf("%s: %d cycles, %d hanging transactions (after %d of the cycles)%n", kind.flag, cycles.size(),
                    hanging, cyclesWith);
            if (kind == Kind.TERM) {
                log.println("  " + RestartRun.summary(cycles, "signal to stopped", Cycle::stopped));
            }
            if (kind != Kind.KILL_APP) {
                log.println("  " + RestartRun.summary(cycles, "signal to broker up", Cycle::brokerUp));
            }
            log.println("  " + RestartRun.summary(cycles, "signal to every capability running", Cycle::running));
            log.println("  " + RestartRun.summary(cycles, "signal to first answer", Cycle::firstAnswer));
        });
        report.phases().forEach(phase -> log.printf("%s: %s; lost %d, doubled %d%n", phase.name(), phase.verdict(),
                phase.verdict().lost(), phase.verdict().doubled()));
        log.printf("%s in %d s%n", report.ok() ? "passed" : "FAILED", report.elapsed().toSeconds());
    }

    @Command(name = "bin/stop-start", description = "Stops and starts `cognition run` while requests flow: SIGTERM, "
            + "SIGKILL of the app alone (its broker apart survives), SIGKILL of everything (the embedded broker "
            + "inside); counts the hanging transactions each stop leaves, times each restart to its first answer, "
            + "and at the end checks every request was answered exactly once. Exit 0 when so.")
    static final class Flags {

        @Option(names = "--cycles", paramLabel = "N", defaultValue = "67",
                description = "Cycles of each kind (default: ${DEFAULT-VALUE}; 200 in all with the three kinds).")
        int cycles;

        @Option(names = "--rate", paramLabel = "R", defaultValue = "20",
                description = "Requests per second (default: ${DEFAULT-VALUE}).")
        int rate;

        @Option(names = "--kinds", paramLabel = "KIND", split = ",", defaultValue = "term,kill-app,kill-all",
                converter = KindConverter.class,
                description = "Which stops, of term, kill-app and kill-all (default: ${DEFAULT-VALUE}).")
        List<Kind> kinds;

        @Mixin
        RunArgs.Seed seed;

        Options options() {
            return new Options(cycles, rate, seed.value, kinds.stream().distinct().toList());
        }
    }

    /** The flag's words for the kinds. */
    static final class KindConverter implements picocli.CommandLine.ITypeConverter<Kind> {
        @Override
        public Kind convert(String value) {
            for (Kind kind : Kind.values()) {
                if (kind.flag.equals(value)) {
                    return kind;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not term, kill-app or "
                    + "kill-all");
        }
    }

    /** {@code bin/stop-start}: the long form. */
    public static void main(String[] args) throws Exception {
        Options options = RunArgs.parseOrExit(new Flags(), args).options();
        try {
            Report report = run(Files.createTempDirectory("cognition-stop-start"), options, System.out);
            System.exit(report.ok() ? 0 : 1);
        } catch (Exception | AssertionError e) {
            // The agent's and readers' threads would keep the JVM alive: say why it ended, and end.
            e.printStackTrace();
            System.exit(1);
        }
    }
}
