package io.cognitionstreams.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerConfig;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The broker stops mid-run and comes back on the same data and ports, once per downtime given, as in a restart of
 * a one-node cluster or a network partition; the app is not touched and must recover by itself, answering every
 * request exactly once. A downtime over the clients' max.block.ms (Kafka's default 60 s in the long run) makes
 * blocked transactional calls fail for good, which the app must survive too. {@link BrokerRestartIT} runs a short
 * form; {@code bin/broker-restart} runs {@link #main}.
 */
final class BrokerRestartRun {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    /**
     * @param maxBlock     the app's clients' max.block.ms, as an operator sets it with {@code --command-config}
     * @param abortHanging abort, as an operator would, a hanging transaction the broker leaves behind (the one fault
     *                     the app cannot get past by itself, docs/reliability.md) instead of failing on it
     */
    record Options(int requests, int rate, List<Duration> downtimes, Duration maxBlock, boolean abortHanging) {
    }

    /** @param aborted the hanging transactions aborted by hand on the way, when allowed to */
    record Report(Ledger.Verdict verdict, boolean stillRunning, Duration elapsed, List<OpenTransaction> aborted) {
        boolean ok() {
            return verdict.ok() && stillRunning;
        }
    }

    private BrokerRestartRun() {
    }

    static Report run(Path workDir, Options options, PrintStream log) throws Exception {
        long started = System.nanoTime();
        BrokerSettings brokerSettings = new BrokerSettings(workDir.resolve("kafka"), freePort(), freePort(),
                Duration.ofSeconds(60));
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(brokerSettings);
        String bootstrap = broker.bootstrapServers();
        String run = "restart-" + UUID.randomUUID().toString().substring(0, 8);
        log.printf("broker restart run %s: %d requests at %d/s, downtimes %s, max.block.ms %d%n", run,
                options.requests(), options.rate(), options.downtimes(), options.maxBlock().toMillis());
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        long[] numbers = Traffic.first(options.requests());
        Map<String, String> prompts = Traffic.prompts(Workload.NO_MEMORY, run, numbers);
        Settings settings = Settings.local(bootstrap, run, workDir.resolve("state"));
        CognitionRuntime runtime = CognitionRuntime.start(settings.withClient(
                Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) options.maxBlock().toMillis()), settings.tuning()));
        try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
            runtime.awaitRunning(TIMEOUT);
            Traffic traffic = Traffic.start(bootstrap, topics.requests, Workload.NO_MEMORY, run, numbers,
                    options.rate());
            List<Duration> downtimes = options.downtimes();
            try (Answers answers = new Answers(bootstrap, topics, run)) {
                for (int i = 0; i < downtimes.size(); i++) {
                    while (traffic.sent() < (long) options.requests() * (i + 1) / (downtimes.size() + 1)) {
                        Thread.sleep(50);
                    }
                    awaitAnswering(answers, Math.min(traffic.sent(), options.requests() - 1));
                    broker.close();
                    log.printf("broker stopped at %.1f s (%d sent), down for %d s%n", seconds(started),
                            traffic.sent(), downtimes.get(i).toSeconds());
                    Thread.sleep(downtimes.get(i).toMillis());
                    broker = EmbeddedKafkaBroker.start(brokerSettings);
                    log.printf("broker back at %.1f s%n", seconds(started));
                }
            }
            traffic.await();
            List<OpenTransaction> aborted = awaitComplete(ledger, prompts, bootstrap, topics, options, log, runtime);
            log.printf("all answered at %.1f s; capabilities %s%n", seconds(started), runtime.states());
            boolean running = allRunningWithin(runtime, Duration.ofSeconds(60));
            runtime.close();
            ledger.catchUp();
            Report report = new Report(ledger.verify(prompts), running, Duration.ofNanos(System.nanoTime() - started),
                    aborted);
            log.printf("%s in %d s%s%n", report.verdict(), report.elapsed().toSeconds(), aborted.isEmpty() ? ""
                    : "; " + aborted.size() + " hanging transaction partition(s) aborted by hand: " + aborted);
            return report;
        } finally {
            runtime.close();
            broker.close();
        }
    }

    /**
     * Until a request sent from now on is answered: the app has got over the last outage and is mid-traffic, its
     * transactions in flight, so the next outage catches commits that must outlast max.block.ms rather than an app
     * still reconnecting.
     */
    private static void awaitAnswering(Answers answers, long from) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!answers.answeredFrom(from)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no request from " + from + " answered within " + TIMEOUT);
            }
        }
    }

    /**
     * Waits for every answer. A stall is checked for hanging transactions, our producers' 10 s transaction timeout
     * long past: they are named in the failure, or aborted on every partition and waited for once more.
     */
    private static List<OpenTransaction> awaitComplete(Ledger ledger, Map<String, String> prompts, String bootstrap,
                                                       Topics topics, Options options, PrintStream log,
                                                       CognitionRuntime runtime) throws Exception {
        try {
            ledger.awaitComplete(prompts, TIMEOUT);
            return List.of();
        } catch (AssertionError stalled) {
            Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            List<OpenTransaction> hanging = Hanging.find(bootstrap, topics, Duration.ofMinutes(1));
            if (hanging.isEmpty() || !options.abortHanging()) {
                List<String> unanswered = ledger.incomplete(prompts);
                String where = Whereabouts.of(bootstrap, topics, runtime.settings().applicationId(),
                        unanswered.subList(0, Math.min(20, unanswered.size())));
                throw new AssertionError(stalled.getMessage() + "; where the first unanswered stopped:\n" + where
                        + (hanging.isEmpty() ? ""
                        : "; hanging transactions left by the broker (docs/reliability.md): " + hanging)
                        + "; capabilities " + runtime.states() + ", active tasks " + runtime.activeTasks()
                        + "; lag " + lag(client, runtime) + "; stream threads:\n" + streamThreads(), stalled);
            }
            log.printf("stalled on hanging transactions the broker left behind; aborting them: %s%n", hanging);
            Hanging.abort(bootstrap, hanging);
            ledger.awaitComplete(prompts, TIMEOUT);
            return hanging;
        }
    }

    /**
     * Whether every capability is (back to) RUNNING within the timeout. A rebalance after the broker's return is
     * normal and brief, so the state is waited for, not sampled: a thread that died would leave it ERROR or stuck.
     */
    static boolean allRunningWithin(CognitionRuntime runtime, Duration timeout) throws InterruptedException {
        try {
            runtime.awaitRunning(timeout);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /**
     * Each capability's and the model worker's committed offsets against the end of what it reads: what it has not
     * taken yet. The worker is a hop of its own (packets to outputs), so a stall there shows too.
     */
    private static String lag(Map<String, Object> client, CognitionRuntime runtime) {
        StringBuilder lag = new StringBuilder();
        List<String> capabilities = new ArrayList<>(runtime.states().keySet());
        capabilities.add("model-worker");
        try (Admin admin = Admin.create(client)) {
            for (String capability : capabilities) {
                String group = runtime.settings().applicationId() + "-" + capability;
                Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata>
                        committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS);
                var ends = admin.listOffsets(committed.keySet().stream().collect(java.util.stream.Collectors
                        .toMap(tp -> tp, tp -> org.apache.kafka.clients.admin.OffsetSpec.latest()))).all()
                        .get(30, TimeUnit.SECONDS);
                committed.forEach((tp, offset) -> {
                    long behind = ends.get(tp).offset() - offset.offset();
                    if (behind > 0) {
                        lag.append(capability).append(' ').append(tp).append(" behind ").append(behind).append("; ");
                    }
                });
            }
        } catch (Exception e) {
            lag.append("(unknown: ").append(e).append(')');
        }
        return lag.toString();
    }

    /** Where each of the app's threads is, for a stall nothing else explains. */
    private static String streamThreads() {
        StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().contains("StreamThread") || thread.getName().contains("GlobalStreamThread")
                    || thread.getName().equals("model-worker")) {
                dump.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                for (int i = 0; i < Math.min(12, stack.length); i++) {
                    dump.append("    at ").append(stack[i]).append('\n');
                }
            }
        });
        return dump.toString();
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Command(name = "bin/broker-restart", description = "Stops the embedded broker mid-run and starts it again, "
            + "once per downtime, while the app runs untouched; exit 0 when every request is answered exactly once "
            + "and every capability is running.")
    static final class Flags {

        @Option(names = "--requests", paramLabel = "N", defaultValue = "20000",
                description = "Requests to send (default: ${DEFAULT-VALUE}).")
        int requests;

        @Option(names = "--rate", paramLabel = "R", defaultValue = "100",
                description = "Requests per second (default: ${DEFAULT-VALUE}).")
        int rate;

        @Option(names = "--downtimes", paramLabel = "S", split = ",", defaultValue = "5,65,120",
                description = "Seconds the broker stays down, one outage each, after equal shares of the requests "
                        + "(default: ${DEFAULT-VALUE}).")
        List<Long> downtimes;

        @Option(names = "--max-block", paramLabel = "S", defaultValue = "60",
                description = "The app clients' max.block.ms in seconds; a downtime over it fails blocked "
                        + "transactional calls for good (default: ${DEFAULT-VALUE}).")
        int maxBlock;

        @Option(names = "--abort-hanging", description = "Should the broker come back with a hanging transaction, "
                + "abort it as an operator would and go on, instead of failing with its description.")
        boolean abortHanging;

        Options options() {
            return new Options(requests, rate, downtimes.stream().map(Duration::ofSeconds).toList(),
                    Duration.ofSeconds(maxBlock), abortHanging);
        }
    }

    /** {@code bin/broker-restart}: the long form. */
    public static void main(String[] args) throws Exception {
        Options options = RunArgs.parseOrExit(new Flags(), args).options();
        Report report = run(Files.createTempDirectory("cognition-broker-restart"), options, System.out);
        System.exit(report.ok() ? 0 : 1);
    }
}
