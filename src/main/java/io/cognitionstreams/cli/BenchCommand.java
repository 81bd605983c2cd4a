package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.load.EndToEndBench;
import io.cognitionstreams.load.PeakMemory;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measures the whole pipeline: requests/s and latency from a request's timestamp to its first "
                + "channel.cli_chat record (read_committed), at each offered rate, next to a raw produce-then-consume "
                + "pass-through in the same run, and the JVM's peak resident memory.",
                "Starts an embedded broker in a temporary directory (unless --bootstrap-servers) and the runtime "
                        + "in-process under a fresh application id."})
final class BenchCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Mixin
    TuningOptions tuning;

    @Mixin
    MemoryOptions memory;

    @Spec
    CommandSpec spec;

    @Option(names = "--rates", split = ",", defaultValue = "250,500,1000,2000", paramLabel = "R[,R...]",
            description = "Offered loads in requests per second, one step each (default: ${DEFAULT-VALUE}).")
    List<Integer> rates;

    @Option(names = "--duration", defaultValue = "20s",
            description = "Length of each step at its offered rate (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--requests", paramLabel = "N",
            description = "Requests per step, instead of rate x --duration.")
    Integer requests;

    @Option(names = "--warmup", defaultValue = "10s",
            description = "Unreported warm-up at the first rate, pipeline and pass-through (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--workload", defaultValue = "FULL",
            description = "FULL: prompts for every replay transcript, so episodic memory fills and embeds; "
                    + "NO_MEMORY: only transcripts without memory blocks (default: ${DEFAULT-VALUE}).")
    Workload workload;

    @Option(names = "--partitions", defaultValue = "3",
            description = "Partitions of the topics created here (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--drain-timeout", defaultValue = "120s",
            description = "How long a step waits for its last answers after its last send (default: ${DEFAULT-VALUE}).")
    Duration drainTimeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path scratch = Files.createTempDirectory("cognition-bench");
        EmbeddedKafkaBroker broker = null;
        try {
            String bootstrap = cluster.namedCluster().orElse(null);
            if (bootstrap == null) {
                broker = EmbeddedKafkaBroker.start(new BrokerSettings(scratch.resolve("kafka"), 0, 0,
                        Duration.ofSeconds(60)));
                bootstrap = broker.bootstrapServers();
            }
            String run = "bench-" + UUID.randomUUID().toString().substring(0, 8);
            Settings settings = new Settings(bootstrap, run, scratch.resolve("streams"), cluster.registry(),
                    partitions, (short) (broker != null ? 1 : -1), 1, Settings.ModelSettings.replay(),
                    Settings.CompressionSettings.localOnly(), Settings.RoutingSettings.defaults(),
                    GatekeeperSettings.defaults(), CouncilSettings.defaults(), tuning.tuning(),
                    cluster.fileSettings(), ExecutorSettings.none(), memory.settings());
            err.printf("bench %s: %s broker at %s, %d partitions, workload %s, commit interval %d ms%n", run,
                    broker != null ? "embedded" : "external", bootstrap, partitions, workload,
                    tuning.commitInterval.toMillis());
            err.flush();
            List<Row> rows;
            try (CognitionRuntime runtime = CognitionRuntime.start(settings)) {
                runtime.awaitRunning(Duration.ofSeconds(90));
                rows = measure(settings.clientConfig(), run, runtime.topics(), err);
            }
            print(out, rows, broker != null);
            return rows.stream().allMatch(Row::complete) ? 0 : 1;
        } finally {
            if (broker != null) {
                broker.close();
            }
            deleteTree(scratch);
        }
    }

    /** One offered rate measured both ways; {@code warmup} marks a warm-up that could not drain. */
    private record Row(EndToEndBench.Step pipeline, EndToEndBench.Step raw, boolean warmup) {
        boolean complete() {
            return pipeline.answered() == pipeline.sent() && raw.answered() == raw.sent();
        }
    }

    private List<Row> measure(Map<String, Object> client, String run, Topics topics, PrintWriter err)
            throws Exception {
        String scratchTopic = run + ".pass-through";
        try (Admin admin = Admin.create(client)) {
            admin.createTopics(List.of(new NewTopic(scratchTopic, Optional.of(partitions), Optional.empty())))
                    .all().get(60, TimeUnit.SECONDS);
            // Same bytes as a pipeline request, so the two differ only in what happens between send and read.
            byte[] value = topics.requests.valueSerde().serializer()
                    .serialize(Topics.COGNITION_REQUESTS, workload.request(run, 0, Instant.now()));
            Steps steps = new Steps(new EndToEndBench(client, err, drainTimeout),
                    EndToEndBench.pipeline(topics, workload), EndToEndBench.passThrough(scratchTopic, value));
            List<Row> rows = new ArrayList<>();
            int warmupCount = (int) (rates.get(0) * warmup.toMillis() / 1000);
            Row warm = warmupCount > 0 ? steps.row(run + "-warmup", rates.get(0), warmupCount, true) : null;
            if (warm != null && !warm.complete()) {
                rows.add(warm);
            } else {
                for (int rate : rates) {
                    int count = requests != null ? requests : (int) (rate * duration.toMillis() / 1000);
                    Row row = steps.row(run + "-" + rate, rate, count, false);
                    rows.add(row);
                    err.printf("%d/s: pipeline %.0f/s p99 %d ms, pass-through %.0f/s p99 %d ms%n", rate,
                            row.pipeline().perSecond(), row.pipeline().latency().p99(), row.raw().perSecond(),
                            row.raw().latency().p99());
                    err.flush();
                    if (!row.complete()) {
                        break;
                    }
                }
            }
            admin.deleteTopics(List.of(scratchTopic)).all().get(60, TimeUnit.SECONDS);
            return rows;
        }
    }

    /** Both probes at one rate, pipeline first, so the two see the same machine minutes apart at most. */
    private record Steps(EndToEndBench bench, EndToEndBench.Probe pipeline, EndToEndBench.Probe raw) {
        Row row(String run, int rate, int count, boolean warmup) throws InterruptedException {
            return new Row(bench.run(pipeline, run, rate, count), bench.run(raw, run, rate, count), warmup);
        }
    }

    private void print(PrintWriter out, List<Row> rows, boolean embedded) {
        out.printf("cognition bench: workload %s, %d partitions, exactly_once_v2, commit interval %d ms, %s broker, "
                + "%d CPUs%n", workload, partitions, tuning.commitInterval.toMillis(), embedded ? "embedded" : "external",
                Runtime.getRuntime().availableProcessors());
        out.println("latency: request timestamp -> its first channel.cli_chat record, read_committed (ms)");
        out.printf("%9s %8s | %-39s | %-39s%n", "", "", "pipeline", "pass-through");
        out.printf("%9s %8s | %8s %6s %6s %6s %6s %4s | %8s %6s %6s %6s %6s %4s%n", "offered/s", "requests",
                "answer/s", "p50", "p95", "p99", "max", "open", "answer/s", "p50", "p95", "p99", "max", "open");
        for (Row row : rows) {
            out.printf("%9s %8d | %s | %s%n", row.pipeline().offeredRate() + (row.warmup() ? "*" : ""),
                    row.pipeline().sent(), cells(row.pipeline()), cells(row.raw()));
        }
        Row last = rows.get(rows.size() - 1);
        if (!last.complete()) {
            out.printf("open: requests not answered %d s after the step's last send; the pipeline cannot sustain "
                    + "%d/s here, so no higher rate was tried%s%n", drainTimeout.toSeconds(),
                    last.pipeline().offeredRate(), last.warmup() ? " (* the warm-up already fell behind)" : "");
        }
        OptionalLong peak = PeakMemory.residentBytes();
        out.printf("peak RSS (VmHWM) of this JVM (%sbench clients): %s; max heap %d MB%n",
                embedded ? "broker, app and " : "app and ",
                peak.isPresent() ? peak.getAsLong() / (1024 * 1024) + " MB" : "not reported on this OS",
                Runtime.getRuntime().maxMemory() / (1024 * 1024));
        out.flush();
    }

    private static String cells(EndToEndBench.Step step) {
        return String.format("%8.0f %6d %6d %6d %6d %4d", step.perSecond(), step.latency().p50(),
                step.latency().p95(), step.latency().p99(), step.latency().max(), step.sent() - step.answered());
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
