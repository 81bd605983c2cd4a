package io.cognitionstreams.reliability;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

/**
 * The crash test: the app runs in a child JVM while requests flow and is killed with SIGKILL at random moments,
 * then restarted on the same state directory; at the end every request must have exactly one packet, one model
 * output, its tool calls and its routed blocks, read_committed. {@link CrashIT} runs a short form in the suite;
 * {@code bin/crash-test} runs {@link #main} with its own embedded broker for the long form.
 *
 * <p>The broker lives in this JVM, so it survives the kills. The workload avoids episodic memory (see
 * docs/reliability.md): embedding every prompt would make a long run take hours, not what is being tested.
 */
final class CrashRun {

    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    /** @param rate requests per second the agents send; kills are spread over the time that takes */
    record Options(int requests, int kills, int rate, long seed) {
    }

    /** @param kills when each kill fell: seconds since the first request, and how many had been sent */
    record Report(Ledger.Verdict verdict, List<String> kills, Duration elapsed) {
    }

    private CrashRun() {
    }

    static Report run(String bootstrap, Path workDir, Options options, PrintStream log) throws Exception {
        String run = "crash-" + UUID.randomUUID().toString().substring(0, 8);
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        Path stateDir = workDir.resolve("state");
        Path appLog = workDir.resolve("app.log");
        log.printf("crash run %s: %d requests at %d/s, %d kills, seed %d, app log %s%n", run, options.requests(),
                options.rate(), options.kills(), options.seed(), appLog);
        Random random = new Random(options.seed());
        long started = System.nanoTime();
        ChildApp app = startRunning(bootstrap, run, stateDir, appLog);
        long[] numbers = Traffic.first(options.requests());
        Traffic traffic = Traffic.start(bootstrap, topics.requests, Workload.NO_MEMORY, run, numbers, options.rate());
        // Kill moments spread over the sending time, each a random delay after the app last came up.
        long sendMillis = 1000L * options.requests() / options.rate();
        long maxDelay = Math.max(1000, 2 * sendMillis / Math.max(1, options.kills()));
        List<String> kills = new ArrayList<>();
        for (int k = 1; k <= options.kills(); k++) {
            Thread.sleep(200 + (long) (random.nextDouble() * maxDelay));
            app.kill();
            String moment = String.format("%.1f s (%d sent)", (System.nanoTime() - started) / 1e9, traffic.sent());
            kills.add(moment);
            log.printf("kill %d/%d: SIGKILL at %s%n", k, options.kills(), moment);
            app = startRunning(bootstrap, run, stateDir, appLog);
            log.printf("restarted, running at %.1f s%n", (System.nanoTime() - started) / 1e9);
        }
        traffic.await();
        Map<String, String> prompts = Traffic.prompts(Workload.NO_MEMORY, run, numbers);
        try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
            ledger.awaitComplete(prompts, Duration.ofMinutes(5).plusMillis(sendMillis));
            // A clean stop, so nothing is left in flight: any duplicate would now be committed and counted.
            log.printf("all answered at %.1f s; stopping the app (exit %d)%n", (System.nanoTime() - started) / 1e9,
                    app.stop());
            ledger.catchUp();
            Report report = new Report(ledger.verify(prompts), kills,
                    Duration.ofNanos(System.nanoTime() - started));
            log.printf("%s in %d s%n", report.verdict(), report.elapsed().toSeconds());
            return report;
        }
    }

    private static ChildApp startRunning(String bootstrap, String run, Path stateDir, Path appLog)
            throws InterruptedException {
        ChildApp app = ChildApp.start(bootstrap, run, stateDir, appLog);
        app.requireRunning(START_TIMEOUT);
        return app;
    }

    @Command(name = "bin/crash-test", description = "SIGKILLs `cognition run` at random moments while requests flow, "
            + "restarting it each time; exit 0 when every request has exactly one of each output.")
    static final class Flags {

        @Option(names = "--requests", paramLabel = "N", defaultValue = "50000",
                description = "Requests to send (default: ${DEFAULT-VALUE}).")
        int requests;

        @Option(names = "--kills", paramLabel = "K", defaultValue = "10",
                description = "SIGKILLs of the app (default: ${DEFAULT-VALUE}).")
        int kills;

        @Option(names = "--rate", paramLabel = "R", defaultValue = "500",
                description = "Requests per second (default: ${DEFAULT-VALUE}).")
        int rate;

        @Mixin
        RunArgs.Seed seed;

        Options options() {
            return new Options(requests, kills, rate, seed.value);
        }
    }

    /** {@code bin/crash-test}: the long form. */
    public static void main(String[] args) throws Exception {
        Options options = RunArgs.parseOrExit(new Flags(), args).options();
        Path workDir = Files.createTempDirectory("cognition-crash");
        Report report;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerSettings(workDir.resolve("kafka"), 0,
                0, Duration.ofSeconds(60)))) {
            report = run(broker.bootstrapServers(), workDir, options, System.out);
        }
        System.exit(report.verdict().ok() ? 0 : 1);
    }
}
