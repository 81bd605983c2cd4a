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
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.skills.SkillFiles;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.clients.ClientProperties;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.gatekeeper.CognitiveLoad;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import io.cognitionstreams.routing.RoutingLimits;
import io.cognitionstreams.security.Principals;
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

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--data-dir", defaultValue = "data", paramLabel = "DIR",
            description = "Embedded broker data and state stores (default: ${DEFAULT-VALUE}). Kept across restarts.")
    Path dataDir;

    @Option(names = "--port", defaultValue = "9092", description = "Embedded broker port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--controller-port", defaultValue = "9093",
            description = "Embedded broker's KRaft controller port (default: ${DEFAULT-VALUE}).")
    int controllerPort;

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

    @Option(names = "--model-endpoint", paramLabel = "URL",
            description = "OpenAI-compatible API base URL, e.g. http://localhost:11434/v1. "
                    + "Default: the replay model, which answers from recorded transcripts.")
    String modelEndpoint;

    @Option(names = "--model-api-key-env", paramLabel = "VAR",
            description = "Environment variable holding the endpoint's API key (the key itself never goes on the "
                    + "command line).")
    String modelApiKeyEnv;

    @Option(names = "--model-name", paramLabel = "NAME",
            description = "Model name sent to the endpoint instead of each packet's target model.")
    String modelName;

    @Option(names = "--model-timeout", defaultValue = "60s",
            description = "Timeout of one model call (default: ${DEFAULT-VALUE}).")
    Duration modelTimeout;

    @Option(names = "--lite-model", paramLabel = "NAME",
            description = "Model on --model-endpoint that compresses fields the local summarizer cannot (seed 003's "
                    + "Lite model).")
    String liteModel;

    @Option(names = "--prime-model", paramLabel = "NAME",
            description = "Model on --model-endpoint tried last to compress a field (seed 003's Prime model).")
    String primeModel;

    @Option(names = "--compression-deadline", defaultValue = "20s",
            description = "Time compressing one field may take in all (default: ${DEFAULT-VALUE}); keep it well "
                    + "under max.poll.interval.ms (5 min).")
    Duration compressionDeadline;

    @Option(names = "--destinations", paramLabel = "MARKER=ch,...;...",
            description = "Rows replacing seed 003's destination matrix, e.g. \"PLAN=cli_chat;THOUGHT_SEED=memory\".")
    String destinations;

    @Option(names = "--max-blocks-per-output", paramLabel = "N", defaultValue = "" + RoutingLimits.DEFAULT_MAX_BLOCKS,
            description = "Blocks one model output may have; a longer one is dead-lettered whole "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxBlocksPerOutput;

    @Option(names = "--max-records-per-output", paramLabel = "N",
            defaultValue = "" + RoutingLimits.DEFAULT_MAX_RECORDS,
            description = "Records one model output may become (a block on each of its channels, its calls and "
                    + "events); more is dead-lettered whole (default: ${DEFAULT-VALUE}).")
    int maxRecordsPerOutput;

    @Option(names = "--redaction-config", paramLabel = "FILE",
            description = "Content-policy rules and profanity list (format in docs/redaction.md).")
    Path redactionConfig;

    @Option(names = "--skills-dir", defaultValue = "${env:COGNITION_HOME:-.}/skills", paramLabel = "DIR",
            description = "Skills loaded into cognition.skills at start, when the directory exists "
                    + "(default: ${DEFAULT-VALUE}); `cognition skills load` reloads them while running.")
    Path skillsDir;

    @Option(names = "--root-caller", paramLabel = "NAME",
            description = "Caller whose tool calls the gatekeeper approves without a permission check (each one is "
                    + "recorded as a PRIVILEGED_CALL event). Default: none.")
    String rootCaller;

    @Option(names = "--cognitive-load-threshold", paramLabel = "N",
            defaultValue = "" + CognitiveLoad.DEFAULT_THRESHOLD,
            description = "Active skills a session may have before its tool results carry a cognitive-load warning "
                    + "(default: ${DEFAULT-VALUE}).")
    int cognitiveLoadThreshold;

    @Option(names = "--recorded-results-retention", defaultValue = "7d", paramLabel = "DURATION",
            description = "How long the gatekeeper keeps each tool result for a replay of its session to answer "
                    + "with; match it to cognition.requests' retention (default: ${DEFAULT-VALUE}).")
    Duration recordedResultsRetention;

    @Option(names = "--council-roles", defaultValue = "prime,lite,codemind", split = ",", paramLabel = "ROLE",
            description = "Council roles that heartbeat, propose and vote (default: ${DEFAULT-VALUE}).")
    List<String> councilRoles;

    @Option(names = "--council-prime", defaultValue = "prime",
            description = "The council role whose vote breaks a tie (default: ${DEFAULT-VALUE}).")
    String councilPrime;

    @Option(names = "--council-quorum", defaultValue = "2",
            description = "Distinct roles a council decision needs; reduced to the active roles' count when fewer "
                    + "are active, never below 2 (default: ${DEFAULT-VALUE}).")
    int councilQuorum;

    @Option(names = "--council-heartbeat-timeout", defaultValue = "90s",
            description = "A council role with no heartbeat for longer is inactive (default: ${DEFAULT-VALUE}).")
    Duration councilHeartbeatTimeout;

    @Option(names = "--council-proposal-ttl", defaultValue = "5m",
            description = "A proposal undecided this long expires (default: ${DEFAULT-VALUE}).")
    Duration councilProposalTtl;

    @Option(names = "--council-tick", defaultValue = "5s",
            description = "How often the council checks the wall clock for deadlines no message has reached; 0s "
                    + "turns that off, for replays (default: ${DEFAULT-VALUE}).")
    Duration councilTick;

    @Option(names = "--council-max-clock-skew", defaultValue = "30s",
            description = "A council message stamped further ahead of this machine's clock is dead-lettered: it "
                    + "would move the council's clock past every other role's heartbeat (default: ${DEFAULT-VALUE}).")
    Duration councilMaxClockSkew;

    @Option(names = "--council-signatures", defaultValue = "off", paramLabel = "off|required",
            converter = RunCommand.SignaturesConverter.class,
            description = "required: every council message must be signed by its sender's Ed25519 key (a role's on "
                    + "council.keys, the app's own senders' with --signing-key); unsigned, forged, wrongly keyed, "
                    + "replayed or stale ones are dead-lettered (default: ${DEFAULT-VALUE}).")
    CouncilSettings.Signatures councilSignatures;

    @Option(names = "--council-max-message-age", defaultValue = "5m",
            description = "With --council-signatures required, a council message stamped further behind this "
                    + "machine's clock is dead-lettered, and msg_ids are remembered this long against replays "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration councilMaxMessageAge;

    @Option(names = "--rewind-to-time", paramLabel = "ISO-8601",
            description = "Before anything starts consuming, move each --rewind-group's committed offsets to the "
                    + "first record at or after this time, as `cognition rewind` does. The way to rewind the app's "
                    + "own groups on the embedded broker, where they are active whenever the broker runs.")
    String rewindToTime;

    @Option(names = "--rewind-group", paramLabel = "GROUP",
            description = "A consumer group --rewind-to-time moves (repeatable), e.g. "
                    + Settings.DEFAULT_APPLICATION_ID + "-model-worker.")
    List<String> rewindGroups;

    @Option(names = "--secure", description = "Secure the embedded broker: SASL/SCRAM logins, Kafka's "
            + "StandardAuthorizer, least-privilege ACLs for each principal (docs/security.md); the app acts as "
            + "User:app. Passwords and client files are in --secrets-dir.")
    boolean secure;

    @Option(names = "--secrets-dir", paramLabel = "DIR",
            description = "With --secure: each principal's password, generated once (<name>.password, owner-only), "
                    + "and client settings to give any command as --command-config (<name>.properties) "
                    + "(default: <data-dir>/secrets).")
    Path secretsDir;

    @Option(names = "--governance-config", paramLabel = "FILE",
            description = "Client settings (as --command-config) to publish the skills and built-in personas with at "
                    + "start: on a secured cluster only the governance principal may write them "
                    + "(default: the app's own; with --secure: governance's from --secrets-dir).")
    Path governanceConfig;

    @Option(names = "--tenants", split = ",", paramLabel = "TENANT",
            description = "Tenants, each with a requests topic cognition.requests.<tenant> (its requests must name "
                    + "sessions '<tenant>.<name>' and the tenant's memory scopes) and its sessions' chats on "
                    + "channel.<tenant>.*; with --secure each has an agent principal agent-<tenant> that writes and "
                    + "reads only those (default: " + Principals.DEFAULT_TENANTS + " with --secure, "
                    + "none without).")
    List<String> tenants;

    @Option(names = "--demo", description = "Send demo requests (and one malformed record) and print what the "
            + "channel topics, tool.calls and the dead-letter topic receive.")
    boolean demo;

    @Option(names = "--exit-after-demo", description = "With --demo: stop once every demo request is answered.")
    boolean exitAfterDemo;

    @Option(names = "--demo-timeout", defaultValue = "120s",
            description = "With --exit-after-demo: give up (exit 1) after this long (default: ${DEFAULT-VALUE}).")
    Duration demoTimeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
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
        GatekeeperSettings gatekeeper = new GatekeeperSettings(Optional.ofNullable(rootCaller),
                cognitiveLoadThreshold, recordedResultsRetention);
        RoutingLimits routingLimits = new RoutingLimits(maxBlocksPerOutput, maxRecordsPerOutput);
        CouncilSettings council = new CouncilSettings(councilRoles, councilPrime, councilQuorum,
                councilHeartbeatTimeout, councilProposalTtl, councilTick, councilMaxClockSkew, councilSignatures,
                councilMaxMessageAge);
        Settings.MemorySettings memorySettings = memory.settings();
        // The demo shows the whole tool loop with the read-only workspace server shipped in this jar.
        ExecutorSettings tools = executor.settings(demo ? List.of(WorkspaceServer.demoConfig(
                Path.of(System.getenv().getOrDefault("COGNITION_HOME", ".")))) : List.of(), dataDir, demo);
        Map<String, Object> clientProperties = cluster.fileSettings();
        Map<String, Object> governanceProperties = clientProperties;
        if (governanceConfig != null) {
            // The file names who publishes; the app's file still gives everything else (timeouts, tuning).
            governanceProperties = new HashMap<>(clientProperties);
            governanceProperties.putAll(ClientProperties.load(governanceConfig, Map.of()));
        }
        EmbeddedKafkaBroker broker = null;
        String bootstrap = cluster.namedCluster().orElse(null);
        Optional<SecureDeployment> secured = Optional.empty();
        if (secure) {
            if (bootstrap != null) {
                err.println("error: --secure secures the embedded broker. For a cluster of your own, give "
                        + "--command-config with its SASL settings and apply the ACLs with `cognition acl apply` "
                        + "(docs/operations.md)");
                return 2;
            }
            secured = Optional.of(SecureDeployment.prepare(secretsDir != null ? secretsDir
                    : dataDir.resolve("secrets"), new Principals(tenants(tenants, secure), councilRoles),
                    applicationId));
        }
        if (bootstrap == null) {
            // The broker takes seconds to start, more after an unclean stop: say what is going on meanwhile.
            err.printf("starting the embedded Kafka broker (data in %s)%s%n", dataDir.resolve("kafka"),
                    secure ? ", secured" : "");
            err.flush();
            broker = EmbeddedKafkaBroker.start(new BrokerSettings(dataDir.resolve("kafka"), port, controllerPort,
                    BROKER_READY, secured.map(SecureDeployment::saslUsers)));
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
                stateDir != null ? stateDir : dataDir.resolve("streams"), cluster.registry(), partitions, replication,
                threads, new Settings.ModelSettings(Optional.ofNullable(modelEndpoint),
                Optional.ofNullable(modelApiKeyEnv).map(System::getenv), Optional.ofNullable(modelName),
                modelTimeout, 3),
                new Settings.CompressionSettings(Optional.ofNullable(liteModel), Optional.ofNullable(primeModel),
                        compressionDeadline),
                new Settings.RoutingSettings(Optional.ofNullable(destinations), Optional.ofNullable(redactionConfig),
                        routingLimits),
                gatekeeper, council, secure ? reportOnly(tuning.tuning(), err) : tuning.tuning(), clientProperties,
                tools, memorySettings, tenants(tenants, secure));
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
        err.flush();
        if (demo) {
            boolean complete = new DemoWatcher(settings, runtime.topics(), spec.commandLine().getOut())
                    .run(Instant.now(), exitAfterDemo ? demoTimeout : null);
            if (exitAfterDemo) {
                Runtime.getRuntime().removeShutdownHook(hook);
                hook.run();
                return complete ? 0 : 1;
            }
        }
        stopped.await();
        return 0;
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

    /** {@code off} or {@code required}, as the docs write them. */
    static final class SignaturesConverter implements CommandLine.ITypeConverter<CouncilSettings.Signatures> {
        @Override
        public CouncilSettings.Signatures convert(String value) {
            return switch (value) {
                case "off" -> CouncilSettings.Signatures.OFF;
                case "required" -> CouncilSettings.Signatures.REQUIRED;
                default -> throw new CommandLine.TypeConversionException("'" + value + "' is not off or required");
            };
        }
    }
}
