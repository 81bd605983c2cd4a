package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.InstanceId;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.assembly.SessionBudgets;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.clients.ClientProperties;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import io.cognitionstreams.roles.RoleEndpoints;
import io.cognitionstreams.routing.RoutingLimits;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.skills.SkillFiles;
import io.cognitionstreams.telemetry.MetricsServer;
import io.cognitionstreams.tokens.Tokenizers;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "run",
        description = {"Runs every topology and the model worker until Ctrl-C.",
                "Without --bootstrap-servers an embedded Kafka broker is started first, with its data in --data-dir."})
final class RunCommand implements Callable<Integer> {

    /**
     * How long a rewind at start waits for the members of the app's previous run to leave its groups: well past
     * the app's consumers' default session timeout of 15 s (--session-timeout).
     */
    private static final Duration PREVIOUS_MEMBERS_WAIT = Duration.ofSeconds(60);
    /** How often a start says which capabilities it still waits for. */
    private static final Duration START_PROGRESS = Duration.ofSeconds(30);
    /**
     * How long the embedded broker may take to answer: after an unclean stop it recovers every partition's log, which
     * took over a minute on two cores shared with other builds.
     */
    private static final Duration BROKER_READY = Duration.ofMinutes(3);
    /** Where bin/cognition wants the mark that this run got to running (the system property names the file). */
    private static final String CLASS_ARCHIVE_READY = "cognition.class-archive.ready";

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "State stores' directory (default: <data-dir>/streams).")
    Path stateDir;

    @Option(names = "--application-id", defaultValue = Settings.DEFAULT_APPLICATION_ID,
            description = "Kafka Streams application id; instances with the same id share partitions "
                    + "(default: ${DEFAULT-VALUE}).")
    String applicationId;

    @Option(names = "--partitions", defaultValue = "3",
            description = "Partitions of the topics this instance creates (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Replication of created and internal topics (default: 1 on the embedded broker, "
                    + "the cluster's default otherwise).")
    Short replicationFactor;

    @Option(names = "--threads", defaultValue = "1", description = "Stream threads (default: ${DEFAULT-VALUE}).")
    int threads;

    @Mixin
    TuningOptions tuning;

    @Mixin
    ExecutorOptions executor;

    @Mixin
    MemoryOptions memory;

    @Mixin
    TelemetryOptions telemetry;

    @Mixin
    StreamOptions streaming;

    @Mixin
    BudgetOptions budgets;

    @Mixin
    ApprovalOptions approval;

    @Mixin
    CouncilRoleOptions roleOptions;

    @Mixin
    ConfigOptions config;

    @Mixin
    BrokerOptions embedded;

    @Mixin
    ModelOptions model;

    @Mixin
    CompressionOptions compression;

    @Mixin
    RoutingOptions routing;

    @Mixin
    GatekeeperOptions gatekeeping;

    @Mixin
    CouncilOptions councils;

    @Mixin
    SecurityOptions security;

    @Mixin
    DemoOptions demoRun;

    @Option(names = "--skills-dir", defaultValue = "${env:COGNITION_HOME:-.}/skills", paramLabel = "DIR",
            description = "Skills loaded into cognition.skills at start, when the directory exists "
                    + "(default: ${DEFAULT-VALUE}); `cognition skills load` reloads them while running.")
    Path skillsDir;

    @Option(names = "--rewind-to-time", paramLabel = "ISO-8601",
            description = "Before anything starts consuming, move each --rewind-group's committed offsets to the "
                    + "first record at or after this time, as `cognition rewind` does. The way to rewind the app's "
                    + "own groups on the embedded broker, where they are active whenever the broker runs.")
    String rewindToTime;

    @Option(names = "--rewind-group", paramLabel = "GROUP",
            description = "A consumer group --rewind-to-time moves (repeatable), e.g. "
                    + Settings.DEFAULT_APPLICATION_ID + "-model-worker.")
    List<String> rewindGroups;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        RunConfig settingsFrom = spec.commandLine().getDefaultValueProvider() instanceof RunConfig given ? given
                : RunConfig.of(new String[0], Map.of());
        if (!settingsFrom.unknownKeys(spec).isEmpty()) {
            err.printf("error: %s sets %s, which no flag of run is named (cognition run --help lists them)%n",
                    settingsFrom.file().orElseThrow(), String.join(", ", settingsFrom.unknownKeys(spec)));
            return 2;
        }
        if (config.print) {
            settingsFrom.print(spec, spec.commandLine().getOut());
            return 0;
        }
        if ((rewindToTime == null) != (rewindGroups == null)) {
            err.println("error: --rewind-to-time and --rewind-group go together: which groups, to which time");
            return 2;
        }
        Optional<Instant> rewindTo = rewindToTime == null ? Optional.empty()
                : GroupRewind.time("--rewind-to-time", rewindToTime, err);
        if (rewindToTime != null && rewindTo.isEmpty()) {
            return 2;
        }
        // Checked before a broker starts, so a bad flag leaves nothing running.
        RoleEndpoints roleWorkers = roleOptions.endpoints(demoRun.demo);
        // The demo shows the whole tool loop with the read-only workspace server shipped in this jar.
        Rooms rooms = new Rooms(approval.apply(gatekeeping.settings(), councils.councilProposalTtl),
                routing.limits(), councils.settings(roleWorkers, security.secure), roleWorkers, memory.settings(),
                model.settings(), budgets.budgets(), executor.settings(demoRun.demo
                        ? List.of(WorkspaceServer.demoConfig(Path.of(System.getenv().getOrDefault("COGNITION_HOME",
                                ".")))) : List.of(), embedded.dataDir, demoRun.demo));
        Map<String, Object> clientProperties = telemetry.clientSettings(cluster.fileSettings());
        Map<String, Object> governanceProperties = clientProperties;
        if (security.governanceConfig != null) {
            // The file names who publishes; the app's file still gives everything else (timeouts, tuning).
            governanceProperties = new HashMap<>(clientProperties);
            governanceProperties.putAll(ClientProperties.load(security.governanceConfig, Map.of()));
        }
        Path states = stateDir != null ? stateDir : embedded.dataDir.resolve("streams");
        Optional<MetricsServer> metrics = telemetry.startMetrics(applicationId, () -> InstanceId.of(states), err);
        Optional<OpenTelemetrySdk> tracing = Optional.empty();
        try {
            tracing = telemetry.startTracing(applicationId, Optional.ofNullable(routing.redactionConfig), err);
            return run(err, rewindTo, rooms, clientProperties, governanceProperties, states, metrics);
        } finally {
            metrics.ifPresent(MetricsServer::close);
            tracing.ifPresent(OpenTelemetrySdk::close);
        }
    }

    /** What each room's options say, checked before anything starts. */
    private record Rooms(GatekeeperSettings gatekeeper, RoutingLimits routingLimits, CouncilSettings council,
                         RoleEndpoints roleWorkers, Settings.MemorySettings memory, Settings.ModelSettings model,
                         SessionBudgets budgets, ExecutorSettings tools) {
    }

    private int run(PrintWriter err, Optional<Instant> rewindTo, Rooms rooms, Map<String, Object> clientProperties,
                    Map<String, Object> governanceProperties, Path states, Optional<MetricsServer> metrics)
            throws Exception {
        Tokenizers.loadAllInBackground(); // seconds of the start, while the broker starts or is reached
        EmbeddedKafkaBroker broker = null;
        String bootstrap = cluster.namedCluster().orElse(null);
        Optional<SecureDeployment> secured = Optional.empty();
        if (security.secure) {
            if (bootstrap != null) {
                err.println("error: --secure secures the embedded broker. For a cluster of your own, give "
                        + "--command-config with its SASL settings and apply the ACLs with `cognition acl apply` "
                        + "(docs/operations.md)");
                return 2;
            }
            secured = Optional.of(SecureDeployment.prepare(security.secretsDir != null ? security.secretsDir
                    : embedded.dataDir.resolve("secrets"), new Principals(tenants(security.tenants, security.secure),
                    rooms.council().roles()), applicationId));
        }
        if (bootstrap == null) {
            // The broker takes seconds to start, more after an unclean stop: say what is going on meanwhile.
            err.printf("starting the embedded Kafka broker (data in %s)%s%n", embedded.dataDir.resolve("kafka"),
                    security.secure ? ", secured" : "");
            err.flush();
            broker = EmbeddedKafkaBroker.start(new BrokerSettings(embedded.dataDir.resolve("kafka"), embedded.port,
                    embedded.controllerPort, BROKER_READY, secured.map(SecureDeployment::saslUsers)));
            bootstrap = broker.bootstrapServers();
            err.printf("embedded Kafka broker at %s (data in %s)%n", bootstrap, broker.dataDir());
            err.flush();
        }
        if (secured.isPresent()) {
            try {
                secured.get().configure(bootstrap, err);
            } catch (Exception e) {
                broker.close();
                throw e;
            }
            // The file's other settings (timeouts, tuning) still apply; who the app is comes from the secrets.
            clientProperties = secured.get().clientSettings(Principals.APP, clientProperties);
            governanceProperties = secured.get().clientSettings(Principals.GOVERNANCE, cluster.fileSettings());
        }
        short replication = replicationFactor != null ? replicationFactor : (short) (broker != null ? 1 : -1);
        Settings settings = new Settings(bootstrap, applicationId,
                states, cluster.registry(), partitions, replication,
                threads, rooms.model(), compression.settings(), routing.settings(rooms.routingLimits()),
                rooms.gatekeeper(), rooms.council(), security.secure ? reportOnly(tuning.tuning(), err)
                        : tuning.tuning(), clientProperties, rooms.tools(), rooms.memory(),
                tenants(security.tenants, security.secure), rooms.roleWorkers(), streaming.stream, rooms.budgets());
        CognitionRuntime started = null;
        try {
            // Parsed before anything starts, so a broken SKILL.md stops the start with its file and line.
            Map<String, Skill> skills = Files.isDirectory(skillsDir) ? SkillFiles.load(skillsDir, Instant.now())
                    : Map.of();
            if (rewindTo.isPresent() && rewind(settings, rewindTo.get()) != 0) {
                if (broker != null) {
                    broker.close();
                }
                return 1;
            }
            started = CognitionRuntime.start(settings, skills, governanceProperties);
            if (!skills.isEmpty()) {
                err.printf("loaded %d skills from %s%n", skills.size(), skillsDir);
            }
        } catch (RuntimeException | InterruptedException | IOException | ExecutionException e) {
            if (started != null) {
                started.close();
            }
            if (broker != null) {
                broker.close();
            }
            throw e;
        }
        CognitionRuntime runtime = started;
        metrics.ifPresent(server -> server.readiness(runtime::notReady));
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        EmbeddedKafkaBroker ownedBroker = broker;
        Thread hook = new Thread(() -> {
            stopping.set(true);
            // The app's clients first, then, once none of its transactions is in flight, the broker: a broker
            // stopping under a transaction being completed can lose its markers (docs/operations.md, "Stopping").
            runtime.close(ownedBroker != null ? runtime.transactionsDrain() : Duration.ZERO);
            if (ownedBroker != null) {
                ownedBroker.close();
            }
            stopped.countDown();
        }, "cognition-shutdown");
        // Before the capabilities run: a stop while they restore is as clean as any other.
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            // However long the restore takes: giving up would only make the next start restore it all again.
            runtime.awaitRunning(START_PROGRESS, line -> {
                err.println(line);
                err.flush();
            });
        } catch (IllegalStateException e) {
            if (stopping.get()) {
                stopped.await();
                return 0;
            }
            Runtime.getRuntime().removeShutdownHook(hook);
            hook.run();
            throw e;
        }
        err.printf("cognition streams running (application id %s, %s). Ctrl-C stops it.%n", applicationId,
                runtime.topics().avro().describe());
        classArchiveReady(err);
        err.printf("%s%n", rooms.gatekeeper().approvalRule().describe());
        err.flush();
        if (demoRun.demo) {
            boolean complete = new DemoWatcher(settings, runtime.topics(), spec.commandLine().getOut())
                    .run(Instant.now(), demoRun.exitAfterDemo ? demoRun.demoTimeout : null);
            if (demoRun.exitAfterDemo) {
                Runtime.getRuntime().removeShutdownHook(hook);
                hook.run();
                return complete ? 0 : 1;
            }
        }
        stopped.await();
        return 0;
    }

    /**
     * Tells bin/cognition that the class-data archive this JVM writes at its exit holds the classes of a running app,
     * not only of a start refused for its flags (the launcher keeps only such an archive).
     */
    private static void classArchiveReady(PrintWriter err) {
        String marker = System.getProperty(CLASS_ARCHIVE_READY);
        if (marker != null) {
            try {
                Files.writeString(Path.of(marker), "");
            } catch (IOException | RuntimeException e) {
                err.printf("cannot write %s (%s): later starts go without a class-data archive%n", marker, e);
            }
        }
    }

    /**
     * The tenants with topics of their own: those given, else the default ones with --secure (their agents are
     * principals there) and none without, so an open `run` keeps the topics it always had. Checked as principal
     * names either way: no dot, so no tenant's topics are another's.
     */
    static List<String> tenants(List<String> given, boolean secure) {
        List<String> named = given != null ? given
                : secure ? Principals.defaultTenants() : List.of();
        return new Principals(named, List.of()).tenants();
    }

    /**
     * Aborting another producer's transaction (WriteTxnMarkers) needs CLUSTER_ACTION, which would also let User:app
     * fetch any partition as a replica, past every topic ACL: secured, the app reports hanging transactions with
     * the command that aborts them, for an operator with the broker's own login.
     */
    private static Settings.Tuning reportOnly(Settings.Tuning tuning, PrintWriter err) {
        if (tuning.abortHangingTransactions()) {
            err.println("secured: hanging transactions are reported, not aborted by the app (docs/security.md)");
        }
        return tuning.reportingOnly();
    }

    /** Each group in turn; stops at the first that cannot be rewound, which says why. */
    private int rewind(Settings settings, Instant to) throws ExecutionException, InterruptedException {
        try (Admin admin = Admin.create(settings.clientConfig())) {
            GroupRewind rewind = new GroupRewind(admin, spec.commandLine().getOut(), spec.commandLine().getErr());
            for (String group : rewindGroups) {
                int code = rewind.rewindOnceInactive(group, to, PREVIOUS_MEMBERS_WAIT);
                if (code != 0) {
                    return code;
                }
            }
            return 0;
        }
    }
}
