package io.cognitionstreams.reliability;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Takeover by a surviving instance: two instances of {@code cognition run} (child JVMs, one application id, state
 * directories of their own) on an embedded broker in this JVM, which survives; while an agent sends, one is killed
 * with SIGKILL and what is measured is the time from the kill to an answer, to a request sent after it, on every
 * partition: the dead instance held some step of some partition's path (each capability shares its partitions
 * between the two), and its partitions answer last, once the survivor has taken them over. The dead instance is
 * started again (same state directory) before the next kill, which takes the other one. At the end every request
 * must be answered exactly once. {@code bin/takeover} runs {@link #main}; extra {@code cognition run} flags given
 * after {@code --} go to both instances, to compare settings (e.g. {@code -- --standby-replicas 1}).
 */
final class TakeoverRun {

    private static final int PARTITIONS = 3;
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    record Options(int kills, int rate, long seed, List<String> appArgs) {
    }

    /**
     * One kill: which instance, the seconds a request took to its answer just before, and seconds from the kill
     * to the first answer and to an answer on every partition.
     */
    record Takeover(String instance, double latencyBefore, double firstAnswer, double everyPartition) {
        @Override
        public String toString() {
            return String.format("instance %s, answers taking %.1f s before; first answer %.1f s, every partition "
                    + "answering %.1f s", instance, latencyBefore, firstAnswer, everyPartition);
        }
    }

    record Report(List<Takeover> takeovers, Ledger.Verdict verdict, Duration elapsed) {
    }

    private TakeoverRun() {
    }

    static Report run(String bootstrap, Path workDir, Options options, PrintStream log) throws Exception {
        long started = System.nanoTime();
        String run = "takeover-" + UUID.randomUUID().toString().substring(0, 8);
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        log.printf("takeover run %s: 2 instances, %d kills, %d requests/s, seed %d, flags %s, logs in %s%n", run,
                options.kills(), options.rate(), options.seed(), options.appArgs(), workDir);
        Random random = new Random(options.seed());
        RestartRun.Stalls stalls = new RestartRun.Stalls(bootstrap, topics, RestartRun.OnHanging.FAIL, log);
        List<String> names = List.of("a", "b");
        List<ChildApp> apps = new ArrayList<>();
        Traffic traffic = null;
        try {
            for (String name : names) {
                apps.add(start(bootstrap, run, workDir, name, options.appArgs()));
            }
            for (int i = 0; i < apps.size(); i++) {
                apps.get(i).requireRunning(START_TIMEOUT);
            }
            traffic = Traffic.agent(bootstrap, topics.requests, run, options.rate());
            List<Takeover> takeovers = new ArrayList<>();
            try (Answers answers = new Answers(bootstrap, topics, run)) {
                stalls.await("the first answer", () -> answers.answeredFrom(0));
                log.printf("answering at %.1f s%n", (System.nanoTime() - started) / 1e9);
                for (int k = 1; k <= options.kills(); k++) {
                    int victim = (k - 1) % names.size();
                    Thread.sleep(2_000 + random.nextInt(4_000));
                    double before = FailoverRun.settle(answers, traffic, stalls);
                    long firstAfter = traffic.sent();
                    long killed = System.nanoTime();
                    LocalTime killedAt = LocalTime.now(ZoneOffset.UTC);
                    apps.get(victim).kill();
                    stalls.await("answers on every partition after kill " + k, () -> {
                        answers.answeredFrom(firstAfter);
                        return answers.firstByPartition().size() == PARTITIONS;
                    });
                    Map<Integer, Long> answered = answers.firstByPartition();
                    Takeover takeover = new Takeover(names.get(victim), before,
                            (Collections.min(answered.values()) - killed) / 1e9,
                            (Collections.max(answered.values()) - killed) / 1e9);
                    takeovers.add(takeover);
                    log.printf("kill %d/%d at %.1f s (%s, %d sent, load %s): %s%n", k, options.kills(),
                            (killed - started) / 1e9, killedAt, firstAfter, FailoverRun.loadAverage(), takeover);
                    apps.set(victim, start(bootstrap, run, workDir, names.get(victim), options.appArgs()));
                    apps.get(victim).requireRunning(START_TIMEOUT);
                }
            }
            traffic.stop();
            traffic.await();
            Map<String, String> prompts = Traffic.prompts(Workload.NO_MEMORY, run,
                    traffic.delivered());
            try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
                ledger.awaitComplete(prompts, Duration.ofMinutes(2));
                // Clean stops, so nothing is in flight: any duplicate would now be committed and counted.
                for (ChildApp app : apps) {
                    app.stop();
                }
                ledger.catchUp();
                Report report = new Report(takeovers, ledger.verify(prompts),
                        Duration.ofNanos(System.nanoTime() - started));
                log.printf("%s in %d s%n", report.verdict(), report.elapsed().toSeconds());
                return report;
            }
        } finally {
            if (traffic != null) {
                traffic.stop();
            }
            for (ChildApp app : apps) {
                app.kill();
            }
        }
    }

    private static ChildApp start(String bootstrap, String run, Path workDir, String name, List<String> appArgs) {
        List<String> args = new ArrayList<>(List.of("--partitions", String.valueOf(PARTITIONS)));
        args.addAll(appArgs);
        return ChildApp.start(bootstrap, run, workDir.resolve("state-" + name), workDir.resolve(name + ".log"),
                args.toArray(String[]::new));
    }

    @Command(name = "bin/takeover", description = "Two instances of `cognition run`; one is SIGKILLed while requests "
            + "flow and the survivor takes over, then it is started again before the next kill, which takes the "
            + "other; exit 0 when every request is answered exactly once.")
    static final class Flags {

        @Option(names = "--kills", paramLabel = "N", defaultValue = "4",
                description = "SIGKILLs, of each instance in turn (default: ${DEFAULT-VALUE}).")
        int kills;

        @Option(names = "--rate", paramLabel = "R", defaultValue = "20",
                description = "Requests per second (default: ${DEFAULT-VALUE}).")
        int rate;

        @Mixin
        RunArgs.Seed seed;

        @Parameters(paramLabel = "RUN-FLAGS", description = "After --: `cognition run` flags for both instances, "
                + "e.g. -- --session-timeout 3s --standby-replicas 1.")
        List<String> appArgs = new ArrayList<>();

        Options options() {
            return new Options(kills, rate, seed.value, List.copyOf(appArgs));
        }
    }

    /** {@code bin/takeover}: the long form. */
    public static void main(String[] args) throws Exception {
        Options options = RunArgs.parseOrExit(new Flags(), args).options();
        Path workDir = Files.createTempDirectory("cognition-takeover");
        Report report;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerSettings(workDir.resolve("kafka"), 0,
                0, Duration.ofSeconds(60)))) {
            report = run(broker.bootstrapServers(), workDir, options, System.out);
        }
        System.out.printf("%d kills; %s%n", report.takeovers().size(), report.verdict());
        System.out.println(RestartRun.summary(report.takeovers(), "kill to first answer", Takeover::firstAnswer));
        System.out.println(RestartRun.summary(report.takeovers(), "kill to every partition answering",
                Takeover::everyPartition));
        System.exit(report.verdict().ok() ? 0 : 1);
    }
}
