package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.gatekeeper.ApprovalRule;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.load.ChatEndpointDouble;
import io.cognitionstreams.load.EndToEndBench;
import io.cognitionstreams.load.PeakMemory;
import io.cognitionstreams.load.KafkaTraffic;
import io.cognitionstreams.load.StepServer;
import io.cognitionstreams.load.ToolStepBench;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.telemetry.KafkaMetricsBridge;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "bench",
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

    @Mixin
    ModelOptions model;

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

    @Option(names = "--workload", defaultValue = "FULL", split = ",", paramLabel = "W[,W...]",
            description = "FULL: prompts for every replay transcript, so episodic memory fills and embeds; "
                    + "NO_MEMORY: only transcripts without memory blocks. Two (NO_MEMORY,FULL) measure each rate "
                    + "under both in turn on the same deployment, and what the second costs against the first "
                    + "(default: ${DEFAULT-VALUE}).")
    List<Workload> workloads;

    @Option(names = "--turns", defaultValue = "" + Workload.TURNS_PER_SESSION, paramLabel = "N",
            description = "Requests per session; a session's answers must come in request order "
                    + "(default: ${DEFAULT-VALUE}).")
    int turns;

    @Option(names = "--model-latency", paramLabel = "DURATION",
            description = "Answer with an OpenAI-compatible endpoint double on loopback that takes this long per "
                    + "call, as a real model does, instead of the replay model (which answers at once); "
                    + "--model-concurrency says how many calls the app keeps in flight.")
    Duration modelLatency;

    @Option(names = "--partitions", defaultValue = "3",
            description = "Partitions of the topics created here (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--drain-timeout", defaultValue = "120s",
            description = "How long a step waits for its last answers after its last send (default: ${DEFAULT-VALUE}).")
    Duration drainTimeout;

    @Option(names = "--secure", description = "Measures every step twice, side by side: against an open embedded "
            + "broker and against a second one secured as `run --secure` secures it (SCRAM logins, the ACL profile, "
            + "the app as User:app), requests sent as User:app (agents write only their tenant's topic) and answers "
            + "read as User:operator. Only with the embedded broker.")
    boolean secure;

    @Option(names = "--observed", description = "Measures every step twice, side by side: as `run` without "
            + "--metrics-port and --otlp-endpoint, and as `run` with both (Kafka's metrics bridged, a scrape every "
            + "15 s, every request traced and its spans sent over OTLP to a local receiver): what watching costs.")
    boolean observed;

    @Option(names = "--tools", description = "Measures the agent's tool loop instead: sessions that each take "
            + "--steps steps of tool call, result and next turn through the gatekeeper and the executor, against a "
            + "fast MCP tool that is run at most once (a line appended to a file) and an endpoint double that calls "
            + "it natively each turn (after --model-latency, 0s by default); no call waits for the council. Reports "
            + "each step's overhead (approval to result on tool.results, minus the tool's own time), each hop's "
            + "latency and steps/s, next to the pass-through, and counts any record or tool run seen twice. --rates "
            + "are tool calls a second "
            + "(default with --tools: " + TOOL_RATES + ").")
    boolean tools;

    @Option(names = "--steps", defaultValue = "5", paramLabel = "N",
            description = "With --tools: the tool calls each session makes, one a turn (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--slow-call", paramLabel = "DURATION",
            description = "With --tools: the first session of each rate takes this long over its first step; the "
                    + "bench reports the other sessions' overhead while it runs.")
    Duration slowCall;

    private static final String TOOL_RATES = "100,500";

    private Settings.ModelSettings modelSettings;
    /** With --tools: the step server the executor runs, the sessions' skill, and where the server notes steps. */
    private ExecutorSettings executorSettings = ExecutorSettings.none();
    private Map<String, Skill> skills = Map.of();
    private Path stepLog;

    /** The secure side's principals: no tenant, and the council roles the profile needs anyway. */
    private static final Principals BENCH_PRINCIPALS = new Principals(List.of(),
            CouncilSettings.defaults().roles());

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (secure && observed) {
            err.println("error: --secure and --observed each compare against plain; give one of them");
            return 2;
        }
        if (secure && cluster.namedCluster().isPresent()) {
            err.println("error: --secure compares against a secured embedded broker; without --bootstrap-servers "
                    + "(for a cluster of your own, give --command-config with its SASL settings)");
            return 2;
        }
        if (turns < 1) {
            err.println("error: --turns must be at least 1");
            return 2;
        }
        if (modelLatency != null && model.endpoint != null) {
            err.println("error: --model-latency starts an endpoint double in place of --model-endpoint; give one");
            return 2;
        }
        if (workloads.size() != new HashSet<>(workloads).size() || workloads.size() > 1 && (secure || observed)) {
            err.println("error: --workload takes each workload once, and two only on the plain deployment "
                    + "(without --secure and --observed)");
            return 2;
        }
        if (tools && (secure || observed || model.endpoint != null)) {
            err.println("error: --tools runs its own endpoint double on the plain deployment; without --secure, "
                    + "--observed and --model-endpoint");
            return 2;
        }
        if (steps < 1) {
            err.println("error: --steps must be at least 1");
            return 2;
        }
        if (tools && !spec.commandLine().getParseResult().hasMatchedOption("--rates")) {
            rates = List.of(TOOL_RATES.split(",")).stream().map(Integer::valueOf).toList();
        }
        Path scratch = Files.createTempDirectory("cognition-bench");
        List<Deployment> deployments = new ArrayList<>();
        Optional<BenchObservation> observation = Optional.empty();
        Duration latency = modelLatency == null ? Duration.ZERO : modelLatency;
        ChatEndpointDouble endpoint = tools ? ChatEndpointDouble.start(0, latency, ToolStepBench.answers(steps))
                : modelLatency == null ? null : ChatEndpointDouble.start(0, modelLatency);
        modelSettings = endpoint == null ? model.settings() : model.settings(endpoint.baseUrl());
        if (tools) {
            stepLog = scratch.resolve("steps.log");
            Duration slow = slowCall == null ? Duration.ZERO : slowCall;
            Duration callTimeout = ExecutorSettings.DEFAULT_CALL_TIMEOUT.compareTo(slow.multipliedBy(2)) > 0
                    ? ExecutorSettings.DEFAULT_CALL_TIMEOUT : slow.multipliedBy(2);
            // Auto-continue takes the sessions from step to step: each a turn after its result, the last one the
            // answer.
            executorSettings = new ExecutorSettings(List.of(StepServer.config(stepLog)), callTimeout,
                    ExecutorSettings.DEFAULT_THREADS, ExecutorSettings.DEFAULT_MAX_RESULT_BYTES, Optional.empty(),
                    List.of(), steps, Optional.empty());
            skills = Map.of(ToolStepBench.SKILL, ToolStepBench.skill(Instant.now()));
        }
        try {
            deployments.add(deploy("plain", scratch.resolve("plain"), Optional.empty(), runName(), err));
            if (tools) {
                List<ToolBenchReport.Row> rows = measureTools(deployments.get(0), err);
                ToolBenchReport.print(out, rows, String.format("cognition bench --tools: %d steps a session, %d "
                        + "partitions, exactly_once_v2, commit interval %d ms, %s broker, %d CPUs, %s, executor: %d "
                        + "threads", steps, partitions, tuning.commitInterval.toMillis(),
                        deployments.get(0).broker != null ? "embedded" : "external",
                        Runtime.getRuntime().availableProcessors(), modelDescription(),
                        executorSettings.threads()), drainTimeout);
                printPeakMemory(out, deployments.get(0).broker != null);
                return rows.stream().allMatch(ToolBenchReport.Row::complete) ? 0 : 1;
            }
            if (observed) {
                String run = runName();
                observation = Optional.of(BenchObservation.start(run));
                deployments.add(deploy("observed", scratch.resolve("observed"), Optional.empty(), run, err));
            }
            if (secure) {
                Path dir = scratch.resolve("secure");
                String run = runName();
                deployments.add(deploy("secure", dir, Optional.of(SecureDeployment.prepare(dir.resolve("secrets"),
                        BENCH_PRINCIPALS, run)), run, err));
            }
            List<Row> rows = measure(deployments, observation, err);
            print(out, rows, deployments.get(0).broker != null);
            if (endpoint != null) {
                out.printf("endpoint double: %d calls answered, at most %d at once%n", endpoint.answered(),
                        endpoint.mostAtOnce());
                out.flush();
            }
            return rows.stream().allMatch(Row::complete) ? 0 : 1;
        } finally {
            observation.ifPresent(BenchObservation::close);
            for (int i = deployments.size() - 1; i >= 0; i--) {
                deployments.get(i).close();
            }
            if (endpoint != null) {
                endpoint.close();
            }
            deleteTree(scratch);
        }
    }

    private static String runName() {
        return "bench-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A run's internal topics under {@code <run>} rather than its random name, so that runs read alike. */
    private static String shown(String topic) {
        return topic.replaceFirst("^bench-[0-9a-f]{8}-", "<run>-");
    }

    /**
     * A broker (unless --bootstrap-servers) and the runtime under application id {@code run}; secured, as `run
     * --secure` starts them, so what is measured is the secure deployment itself, not a copy of it.
     */
    private Deployment deploy(String mode, Path dir, Optional<SecureDeployment> secured, String run,
                              PrintWriter err) throws Exception {
        String bootstrap = cluster.namedCluster().orElse(null);
        EmbeddedKafkaBroker broker = null;
        if (bootstrap == null) {
            broker = EmbeddedKafkaBroker.start(new BrokerSettings(dir.resolve("kafka"), 0, 0, Duration.ofSeconds(60),
                    secured.map(SecureDeployment::saslUsers)));
            bootstrap = broker.bootstrapServers();
        }
        Settings settings;
        CognitionRuntime runtime;
        Map<String, Object> client;
        try {
            // Observed, its clients report Kafka's metrics to the registry as `run --metrics-port` makes them.
            Map<String, Object> app = mode.equals("observed") ? KafkaMetricsBridge.clientSettings(
                    cluster.fileSettings()) : cluster.fileSettings();
            Map<String, Object> governance = app;
            Settings.Tuning tuned = tuning.tuning();
            if (secured.isPresent()) {
                secured.get().configure(bootstrap, err);
                app = secured.get().clientSettings(Principals.APP, app);
                governance = secured.get().clientSettings(Principals.GOVERNANCE, cluster.fileSettings());
                // As `run --secure`: aborting others' transactions needs CLUSTER_ACTION, which the app lacks.
                tuned = tuned.reportingOnly();
            }
            settings = new Settings(bootstrap, run, dir.resolve("streams"), cluster.registry(),
                    partitions, (short) (broker != null ? 1 : -1), 1, modelSettings,
                    Settings.CompressionSettings.localOnly(), Settings.RoutingSettings.defaults(),
                    // The tool loop without the council: the step tool is not read-only, so risky would gate it.
                    GatekeeperSettings.defaults().withApproval(tools ? ApprovalRule.Policy.NEVER
                            : ApprovalRule.Policy.RISKY, GatekeeperSettings.DEFAULT_APPROVAL_TIMEOUT),
                    CouncilSettings.defaults(), tuned, app, executorSettings, memory.settings(), List.of());
            err.printf("bench %s (%s): %s broker at %s, %d partitions, workload %s, commit interval %d ms, %s%n",
                    run, mode, broker != null ? "embedded" : "external", bootstrap, partitions, workloads(),
                    tuning.commitInterval.toMillis(), modelDescription());
            err.flush();
            runtime = CognitionRuntime.start(settings, skills, governance);
        } catch (Exception | Error e) {
            if (broker != null) {
                broker.close();
            }
            throw e;
        }
        Deployment deployment = new Deployment(mode, run, broker, runtime);
        try {
            runtime.awaitRunning(Duration.ofSeconds(90));
            client = settings.clientConfig();
            // The pipeline as its users meet it: a writer of the shared requests topic sends (only the app may: an
            // agent writes its tenant's topic, whose sessions the bench's are not), a reader of the shared
            // channels reads. The pass-through topic sits under the app's prefix, so the app owns it.
            Map<String, Object> sender = secured.isEmpty() ? client
                    : secured.get().clientSettings(Principals.APP, client);
            Map<String, Object> reader = secured.isEmpty() ? client
                    : secured.get().clientSettings(Principals.OPERATOR, client);
            deployment.prepare(client, new EndToEndBench(sender, reader, err, drainTimeout),
                    new EndToEndBench(client, err, drainTimeout));
            return deployment;
        } catch (Exception | Error e) {
            deployment.close();
            throw e;
        }
    }

    /** One deployment's broker (null when external), runtime and probes; closing it stops all of them. */
    private final class Deployment implements AutoCloseable {
        final String mode;
        final String run;
        final EmbeddedKafkaBroker broker;
        final CognitionRuntime runtime;
        private Admin admin;
        private String scratchTopic;
        private final Map<Workload, Steps> steps = new EnumMap<>(Workload.class);
        private ToolSteps toolSteps;

        Deployment(String mode, String run, EmbeddedKafkaBroker broker, CognitionRuntime runtime) {
            this.mode = mode;
            this.run = run;
            this.broker = broker;
            this.runtime = runtime;
        }

        void prepare(Map<String, Object> client, EndToEndBench pipeline, EndToEndBench raw) throws Exception {
            admin = Admin.create(client);
            // Under the app's prefix (<app-id>-), which it owns in the ACL profile.
            scratchTopic = run + "-pass-through";
            admin.createTopics(List.of(new NewTopic(scratchTopic, Optional.of(partitions), Optional.empty())))
                    .all().get(60, TimeUnit.SECONDS);
            Topics topics = runtime.topics();
            if (tools) {
                // A tool call's bytes: the record each step starts with.
                byte[] call = topics.toolCalls.valueSerde().serializer().serialize(Topics.TOOL_CALLS,
                        ToolCall.newBuilder().setCallId(run + "-out#1").setSessionId(run + "-s0")
                                .setCaller(ToolStepBench.SKILL).setSkill(ToolStepBench.SKILL)
                                .setTool(StepServer.CALLED).setArguments("{\"session\":\"" + run + "-s0\",\"n\":1,"
                                        + "\"ms\":0}").setTimestamp(Instant.now()).build());
                toolSteps = new ToolSteps(new ToolStepBench(client, topics, stepLog, spec.commandLine().getErr(),
                        drainTimeout), BenchCommand.this.steps, raw,
                        EndToEndBench.passThrough(scratchTopic, call));
                return;
            }
            for (Workload workload : workloads) {
                // Same bytes as a pipeline request, so the two differ only in what happens between send and read.
                byte[] value = topics.requests.valueSerde().serializer()
                        .serialize(Topics.COGNITION_REQUESTS, workload.request(run, 0, Instant.now(), turns));
                steps.put(workload, new Steps(pipeline, EndToEndBench.pipeline(topics, workload, turns), raw,
                        EndToEndBench.passThrough(scratchTopic, value)));
            }
        }

        /** One rate under one workload; the mode is the workload's name when a run compares workloads. */
        Row row(Workload workload, String step, int rate, int count, boolean warmup) throws InterruptedException {
            String label = workloads.size() > 1 ? workload.name() : mode;
            String name = run + "-" + step + (workloads.size() > 1 ? "-" + workload.name().toLowerCase() : "");
            return steps.get(workload).row(label, name, rate, count, warmup);
        }

        ToolBenchReport.Row toolRow(String step, int rate, int sessions, Duration slow, boolean warmup)
                throws InterruptedException {
            return toolSteps.row(run + "-" + step, rate, sessions, slow, warmup);
        }

        @Override
        public void close() throws Exception {
            try (Admin closing = admin) {
                if (!steps.isEmpty() || toolSteps != null) {
                    closing.deleteTopics(List.of(scratchTopic)).all().get(60, TimeUnit.SECONDS);
                }
            } finally {
                runtime.close();
                if (broker != null) {
                    broker.close();
                }
            }
        }
    }

    /** One offered rate measured both ways; {@code warmup} marks a warm-up that could not drain. */
    record Row(String mode, EndToEndBench.Step pipeline, EndToEndBench.Step raw, boolean warmup) {
        boolean complete() {
            return pipeline.answered() == pipeline.sent() && raw.answered() == raw.sent() && pipeline.doubled().isEmpty()
                    && raw.doubled().isEmpty() && pipeline.outOfOrder() == 0;
        }
    }

    /**
     * Each rate on every deployment in turn, so plain and secure see the same machine seconds apart rather than a
     * whole run apart (the cores are shared); all deployments run throughout, so each step has the same company.
     */
    private List<Row> measure(List<Deployment> deployments, Optional<BenchObservation> observation,
                              PrintWriter err) throws Exception {
        List<Row> rows = new ArrayList<>();
        int warmupCount = (int) (rates.get(0) * warmup.toMillis() / 1000);
        if (warmupCount > 0) {
            for (Deployment deployment : deployments) {
                watching(deployment, observation);
                for (Workload workload : workloads) {
                    Row warm = deployment.row(workload, "warmup", rates.get(0), warmupCount, true);
                    if (!warm.complete()) {
                        rows.add(warm);
                        return rows;
                    }
                }
            }
        }
        for (int rate : rates) {
            int count = requests != null ? requests : (int) (rate * duration.toMillis() / 1000);
            boolean complete = true;
            for (Deployment deployment : deployments) {
                watching(deployment, observation);
                for (Workload workload : workloads) {
                    Row row = deployment.row(workload, String.valueOf(rate), rate, count, false);
                    rows.add(row);
                    err.printf("%d/s%s: pipeline %.0f/s p99 %d ms, pass-through %.0f/s p99 %d ms%n", rate,
                            modes() ? " " + row.mode() : "", row.pipeline().perSecond(),
                            row.pipeline().latency().p99(), row.raw().perSecond(), row.raw().latency().p99());
                    err.flush();
                    complete &= row.complete();
                }
            }
            if (!complete) {
                break;
            }
        }
        return rows;
    }

    /**
     * Each rate in turn after an unreported warm-up at the first, tool steps then the pass-through at as many calls;
     * stops after a rate that could not finish.
     */
    private List<ToolBenchReport.Row> measureTools(Deployment deployment, PrintWriter err) throws Exception {
        List<ToolBenchReport.Row> rows = new ArrayList<>();
        int warmupSessions = (int) (rates.get(0) * warmup.toMillis() / 1000 / steps);
        if (warmupSessions > 0) {
            ToolBenchReport.Row warm = deployment.toolRow("warmup", rates.get(0), warmupSessions, Duration.ZERO,
                    true);
            if (!warm.complete()) {
                rows.add(warm);
                return rows;
            }
        }
        for (int rate : rates) {
            int sessions = Math.max(1, requests != null ? requests
                    : (int) (rate * duration.toMillis() / 1000 / steps));
            ToolBenchReport.Row row = deployment.toolRow(String.valueOf(rate), rate, sessions,
                    slowCall == null ? Duration.ZERO : slowCall, false);
            rows.add(row);
            err.printf("%d calls/s: %.0f steps/s, overhead p99 %d ms; pass-through %.0f/s p99 %d ms%n", rate,
                    row.tools().perSecond(), row.tools().overhead().p99(), row.raw().perSecond(),
                    row.raw().latency().p99());
            err.flush();
            if (!row.complete()) {
                break;
            }
        }
        return rows;
    }

    /** Tool steps and the pass-through at as many calls, at one rate, tool steps first. */
    private record ToolSteps(ToolStepBench bench, int steps, EndToEndBench rawBench, EndToEndBench.Probe raw) {
        ToolBenchReport.Row row(String run, int rate, int sessions, Duration slow, boolean warmup)
                throws InterruptedException {
            ToolStepBench.Step tools = bench.run(run, rate, sessions, steps, slow);
            return new ToolBenchReport.Row(tools, rawBench.run(raw, run, rate, tools.expected()), slow, warmup);
        }
    }

    /**
     * Metrics and traces are the process's: on while the observed deployment is measured, off while the plain one
     * is (which then idles, as the observed one does during the plain steps).
     */
    private static void watching(Deployment deployment, Optional<BenchObservation> observation) {
        observation.ifPresent(watch -> watch.watching(deployment.mode.equals("observed")));
    }

    /** Whether each rate is measured more than one way: a row's mode says which. */
    private boolean modes() {
        return secure || observed || workloads.size() > 1;
    }

    private String workloads() {
        return workloads.stream().map(Workload::name).collect(Collectors.joining(","));
    }

    /** Both probes at one rate, pipeline first, so the two see the same machine minutes apart at most. */
    private record Steps(EndToEndBench pipelineBench, EndToEndBench.Probe pipeline, EndToEndBench rawBench,
                         EndToEndBench.Probe raw) {
        Row row(String mode, String run, int rate, int count, boolean warmup) throws InterruptedException {
            return new Row(mode, pipelineBench.run(pipeline, run, rate, count), rawBench.run(raw, run, rate, count),
                    warmup);
        }
    }

    private void print(PrintWriter out, List<Row> rows, boolean embedded) {
        out.printf("cognition bench: workload %s, %d turns per session, %d partitions, exactly_once_v2, commit "
                + "interval %d ms, %s broker, %d CPUs, %s%n", workloads(), turns, partitions,
                tuning.commitInterval.toMillis(), embedded ? "embedded" : "external",
                Runtime.getRuntime().availableProcessors(), modelDescription());
        if (observed) {
            out.println("plain: run as by default; observed: run --metrics-port --otlp-endpoint (Kafka's metrics "
                    + "bridged, scraped every 15 s; every request traced, spans sent over OTLP/HTTP to a local "
                    + "receiver); both running throughout");
        }
        if (workloads.size() > 1) {
            out.println("each rate under each workload in turn, on the same deployment; the first is the baseline");
        }
        if (secure) {
            out.println("plain: an open broker; secure: SCRAM-SHA-512 logins and ACLs, the app as User:app, requests "
                    + "from User:app, answers read by User:operator; both running throughout");
        }
        out.println("latency: request timestamp -> its first channel.cli_chat record, read_committed (ms); cpu: "
                + "this JVM's CPU time from the step's first send to its last answer, per answer (ms); jit: the "
                + "part of it the JIT compiled in, which a warm JVM no longer spends (ms)");
        String modeHeader = modes() ? String.format(" %-9s", "") : "";
        out.printf("%9s %8s%s | %-53s | %-53s%n", "", "", modeHeader, "pipeline", "pass-through");
        out.printf("%9s %8s%s | %8s %6s %6s %6s %6s %4s %6s %6s | %8s %6s %6s %6s %6s %4s %6s %6s%n", "offered/s",
                "requests", modes() ? String.format(" %-9s", "mode") : "", "answer/s", "p50", "p95", "p99", "max",
                "open", "cpu", "jit", "answer/s", "p50", "p95", "p99", "max", "open", "cpu", "jit");
        for (Row row : rows) {
            out.printf("%9s %8d%s | %s | %s%n", row.pipeline().offeredRate() + (row.warmup() ? "*" : ""),
                    row.pipeline().sent(), modes() ? String.format(" %-9s", row.mode()) : "", cells(row.pipeline()),
                    cells(row.raw()));
        }
        printTraffic(out, rows, embedded);
        if (modes()) {
            printCost(out, rows, embedded);
            throughput(rows).ifPresent(out::println);
        }
        printWarming(out, rows);
        Row last = rows.get(rows.size() - 1);
        if (!rows.stream().allMatch(Row::complete)) {
            out.printf("open: requests not answered %d s after the step's last send; the pipeline cannot sustain "
                    + "%d/s here, so no higher rate was tried%s%n", drainTimeout.toSeconds(),
                    last.pipeline().offeredRate(), last.warmup() ? " (* the warm-up already fell behind)" : "");
        }
        List<String> doubled = rows.stream().flatMap(row -> Stream.concat(
                row.pipeline().doubled().stream().map(where -> "pipeline " + where),
                row.raw().doubled().stream().map(where -> "pass-through " + where))).toList();
        int outOfOrder = rows.stream().mapToInt(row -> row.pipeline().outOfOrder()).sum();
        out.printf("exactly once: %d answers doubled, %d answers before an earlier request of their session%n",
                doubled.size(), outOfOrder);
        // Where each was read twice tells a write that happened twice from a reader that read one twice.
        doubled.stream().limit(10).forEach(where -> out.printf("  doubled: %s%n", where));
        out.printf("heap in use, most seen during a step: %d MB%n", rows.stream()
                .mapToLong(row -> Math.max(row.pipeline().peakHeap(), row.raw().peakHeap())).max().orElse(0)
                / (1024 * 1024));
        printPeakMemory(out, embedded);
    }

    private void printPeakMemory(PrintWriter out, boolean embedded) {
        OptionalLong peak = PeakMemory.residentBytes();
        boolean two = secure || observed; // two deployments; workloads share one
        out.printf("peak RSS (VmHWM) of this JVM (%sbench clients): %s; max heap %d MB%n",
                (embedded ? (two ? "two brokers, two apps and " : "broker, app and ")
                        : (two ? "two apps and " : "app and ")),
                peak.isPresent() ? peak.getAsLong() / (1024 * 1024) + " MB" : "not reported on this OS",
                Runtime.getRuntime().maxMemory() / (1024 * 1024));
        out.flush();
    }

    private String modelDescription() {
        if (tools) {
            return String.format("model: an endpoint double calling %s natively each turn after %d ms",
                    StepServer.CALLED, modelLatency == null ? 0 : modelLatency.toMillis());
        }
        if (modelLatency != null) {
            return String.format("model: an endpoint double answering in %d ms, %d calls in flight at most",
                    modelLatency.toMillis(), modelSettings.concurrency());
        }
        return modelSettings.usesReplay() ? "model: replay" : "model: " + modelSettings.endpoint().get() + ", "
                + modelSettings.concurrency() + " calls in flight at most";
    }

    /**
     * Each other mode against the first measured at the same rate: what authentication and authorization cost,
     * metrics and traces, or memory.
     */
    private static void printCost(PrintWriter out, List<Row> rows, boolean embedded) {
        Row baseline = null;
        for (Row row : rows) {
            if (row.warmup()) {
                continue;
            }
            if (baseline == null || baseline.pipeline().offeredRate() != row.pipeline().offeredRate()) {
                baseline = row;
                continue;
            }
            out.printf("%s vs %s at %d/s: pipeline answers/s %+.1f %%, p99 %+d ms, cpu per answer %+.1f %% "
                            + "(%+.1f %% without the JIT's); pass-through answers/s %+.1f %%, p99 %+d ms%n",
                    row.mode(), baseline.mode(), row.pipeline().offeredRate(),
                    change(baseline.pipeline(), row.pipeline()),
                    row.pipeline().latency().p99() - baseline.pipeline().latency().p99(),
                    100 * (row.pipeline().cpuPerRequest() / baseline.pipeline().cpuPerRequest() - 1),
                    100 * (warm(row.pipeline()) / warm(baseline.pipeline()) - 1),
                    change(baseline.raw(), row.raw()), row.raw().latency().p99() - baseline.raw().latency().p99());
            printTrafficChange(out, baseline.pipeline().kafkaPerAnswer(), row.pipeline().kafkaPerAnswer(), embedded);
        }
    }

    /**
     * Each mode's throughput, the most answers a second it gave at any of the rates measured, against the first
     * mode's: a rate far past what a mode carries measures how it copes with a backlog (memory on costs more per
     * answer the longer its backlog) rather than what it carries, so the comparison at one rate depends on the rate.
     */
    static Optional<String> throughput(List<Row> rows) {
        Map<String, EndToEndBench.Step> best = new LinkedHashMap<>();
        Set<Integer> rates = new HashSet<>();
        for (Row row : rows) {
            if (!row.warmup()) {
                rates.add(row.pipeline().offeredRate());
                best.merge(row.mode(), row.pipeline(), (one, other) -> other.perSecond() > one.perSecond() ? other
                        : one);
            }
        }
        if (best.size() < 2 || rates.size() < 2) {
            return Optional.empty();
        }
        Map.Entry<String, EndToEndBench.Step> baseline = best.entrySet().iterator().next();
        return Optional.of("throughput, the most answers a second over the rates: " + best.entrySet().stream()
                .map(mode -> String.format("%s %.0f/s (at %d/s)", mode.getKey(), mode.getValue().perSecond(),
                        mode.getValue().offeredRate())).collect(Collectors.joining(", ")) + "; "
                + best.entrySet().stream().skip(1).map(mode -> String.format("%s %.2f of %s", mode.getKey(),
                        mode.getValue().perSecond() / baseline.getValue().perSecond(), baseline.getKey()))
                .collect(Collectors.joining(", ")));
    }

    /**
     * What each measured step's pipeline asked of Kafka per answer: records and bytes sent, with the topics that took
     * the most records, and, from a broker the bench started (whose JMX meters are in this JVM), its requests, with
     * the types it handled most.
     */
    private void printTraffic(PrintWriter out, List<Row> rows, boolean embedded) {
        out.println("kafka: per answer over a step's time, what the app's producers in this JVM sent (not the bench's "
                + "requests), in records and KB, with the topics that took the most" + (embedded ? ", and the "
                + "requests the embedded broker handled (the bench's own too), with the types it handled most" : ""));
        for (Row row : rows) {
            if (row.warmup()) {
                continue;
            }
            KafkaTraffic.Traffic traffic = row.pipeline().kafkaPerAnswer();
            out.printf("  at %d/s%s: %.2f records, %.2f KB: %s%n", row.pipeline().offeredRate(),
                    modes() ? " " + row.mode() : "", traffic.records().total(), traffic.bytes().total() / 1024,
                    named(traffic.records().against(KafkaTraffic.Tally.NONE), "%s %.2f"));
            if (embedded) {
                out.printf("    %.2f broker requests: %s%n", traffic.requests().total(),
                        named(traffic.requests().against(KafkaTraffic.Tally.NONE), "%s %.2f"));
            }
        }
    }

    /** What a step asked of Kafka per answer beyond its baseline's, and where. */
    private static void printTrafficChange(PrintWriter out, KafkaTraffic.Traffic baseline,
                                           KafkaTraffic.Traffic other, boolean embedded) {
        out.printf("  kafka per answer: %+.2f records (%+.1f %%), %+.2f KB (%+.1f %%): %s%n",
                other.records().total() - baseline.records().total(),
                100 * (other.records().total() / baseline.records().total() - 1),
                (other.bytes().total() - baseline.bytes().total()) / 1024,
                100 * (other.bytes().total() / baseline.bytes().total() - 1),
                named(other.records().against(baseline.records()), "%s %+.2f"));
        if (embedded) {
            out.printf("    %+.2f broker requests (%+.1f %%): %s%n",
                    other.requests().total() - baseline.requests().total(),
                    100 * (other.requests().total() / baseline.requests().total() - 1),
                    named(other.requests().against(baseline.requests()), "%s %+.2f"));
        }
    }

    /** How many topics or request types a line names. */
    private static final int NAMES_SHOWN = 8;

    /** The first {@link #NAMES_SHOWN} counts, each as {@code format} gives its name and count. */
    private static String named(List<Map.Entry<String, Double>> counts, String format) {
        String named = counts.stream().limit(NAMES_SHOWN)
                .map(count -> String.format(format, shown(count.getKey()), count.getValue()))
                .collect(Collectors.joining(", "));
        return counts.size() > NAMES_SHOWN ? named + ", " + (counts.size() - NAMES_SHOWN) + " more" : named;
    }

    private static double change(EndToEndBench.Step baseline, EndToEndBench.Step other) {
        return 100 * (other.perSecond() - baseline.perSecond()) / baseline.perSecond();
    }

    /** The JIT's share of a step's CPU above which its figures are a warming JVM's rather than a warm one's. */
    static final double WARMING_SHARE = 0.05;

    /**
     * Says so when the JIT took a share of a measured step's CPU that moves its figures: on two cores C2 compiles for
     * minutes, and the step measured first pays for the most of it.
     */
    private void printWarming(PrintWriter out, List<Row> rows) {
        List<String> warming = warming(rows, modes());
        if (!warming.isEmpty()) {
            out.printf("still warming up: the JIT compiled for a share of the pipeline's CPU in %s; those figures "
                    + "read high (a warm JVM no longer spends it): a longer --warmup than %d s measures one%n",
                    String.join(", ", warming), warmup.toSeconds());
        }
    }

    /** The measured steps whose pipeline spent more than {@link #WARMING_SHARE} of its CPU compiling, and how much. */
    static List<String> warming(List<Row> rows, boolean modes) {
        return rows.stream().filter(row -> !row.warmup())
                .filter(row -> row.pipeline().jitPerRequest() > WARMING_SHARE * row.pipeline().cpuPerRequest())
                .map(row -> String.format("%d/s%s %.0f %%", row.pipeline().offeredRate(),
                        modes ? " " + row.mode() : "",
                        100 * row.pipeline().jitPerRequest() / row.pipeline().cpuPerRequest()))
                .toList();
    }

    /** A step's CPU per answer without what the JIT compiled in it: what the workload costs a warm JVM. */
    private static double warm(EndToEndBench.Step step) {
        return step.cpuPerRequest() - step.jitPerRequest();
    }

    private static String cells(EndToEndBench.Step step) {
        return String.format("%8.0f %6d %6d %6d %6d %4d %6.2f %6.2f", step.perSecond(), step.latency().p50(),
                step.latency().p95(), step.latency().p99(), step.latency().max(), step.sent() - step.answered(),
                step.cpuPerRequest(), step.jitPerRequest());
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
