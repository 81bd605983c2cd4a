package io.cognitionstreams.app;

import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.assembly.AssemblyTopology;
import io.cognitionstreams.assembly.MemoryWriter;
import io.cognitionstreams.assembly.Personas;
import io.cognitionstreams.clients.GroupTimeouts;
import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.ExecutorWorker;
import io.cognitionstreams.executor.McpServers;
import io.cognitionstreams.executor.ShellCalls;
import io.cognitionstreams.executor.ToolCatalog;
import io.cognitionstreams.executor.ToolExecution;
import io.cognitionstreams.executor.shell.ShellRunner;
import io.cognitionstreams.gatekeeper.DecisionSignatures;
import io.cognitionstreams.health.CatchUpLog;
import io.cognitionstreams.health.DepartedInstances;
import io.cognitionstreams.health.TransactionWatch;
import io.cognitionstreams.model.AnswerStreams;
import io.cognitionstreams.model.ModelWorker;
import io.cognitionstreams.roles.RoleWorker;
import io.cognitionstreams.model.ReplayModel;
import io.cognitionstreams.model.StreamedAnswers;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * One running instance: its topics ensured, one {@link KafkaStreams} per capability (see {@link Pipeline}), and the
 * model worker on its own thread. Start it, then close it (Ctrl-C does so through the CLI's shutdown hook).
 */
public final class CognitionRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CognitionRuntime.class);
    /** After the application id, the workers' group ids; their transactional ids go on from there. */
    private static final String MODEL_WORKER = "-model-worker";
    private static final String EXECUTOR = "-executor";
    private static final String MEMORY_WRITER = "-memory-writer";
    /** How often an instance looks for another gone from the groups: a fraction of a takeover's few seconds. */
    private static final Duration FENCE_LOOK = Duration.ofMillis(500);
    /** How long the readiness check waits for the brokers; a probe given less time counts the wait as a failure. */
    private static final Duration BROKER_CHECK = Duration.ofSeconds(2);
    private static final Duration WATCH_LOOK = Duration.ofSeconds(10);
    /** How long a stop waits for each capability to commit, close its stores and leave its groups. */
    private static final Duration CAPABILITY_CLOSE = Duration.ofSeconds(30);

    private final Settings settings;
    private final Topics topics;
    private final Map<String, KafkaStreams> streams;
    private final Map<String, RestoreLog> restoreLogs;
    /** The model worker, and the executor when it has something to run, each on its own thread. */
    private final List<Worker> workers;
    private final TransactionWatch transactionWatch;
    /** After a start, the progress through what came before it. */
    private final CatchUpLog catchUpLog;
    /** The model endpoints' clients, closed after the workers that call them. */
    private final ModelEndpoints endpoints;
    /** The readiness check's client, made at the first check. */
    private Admin healthAdmin;

    /** A worker loop, its thread, and what it must close once the loop has stopped (the executor's servers). */
    private record Worker(AutoCloseable loop, Thread thread, AutoCloseable after) {
        static <W extends Runnable & AutoCloseable> Worker of(String name, W loop, AutoCloseable after) {
            return new Worker(loop, new Thread(loop, name), after);
        }
    }

    private CognitionRuntime(Settings settings, Topics topics, Map<String, KafkaStreams> streams,
                             Map<String, RestoreLog> restoreLogs, List<Worker> workers,
                             TransactionWatch transactionWatch, ModelEndpoints endpoints) {
        this.settings = settings;
        this.endpoints = endpoints;
        this.topics = topics;
        this.streams = streams;
        this.restoreLogs = restoreLogs;
        this.workers = workers;
        this.transactionWatch = transactionWatch;
        List<String> groups = new ArrayList<>(workerGroups(settings));
        if (settings.tuning().groupProtocol() == GroupProtocol.CLASSIC) {
            // Streams groups (KIP-1071) keep their offsets where Admin's consumer-group calls do not read them.
            streams.keySet().forEach(capability -> groups.add(StreamsSettings.applicationId(settings.applicationId(),
                    capability)));
        }
        this.catchUpLog = new CatchUpLog(settings.clientConfig(), CatchUpLog.named(settings.applicationId(), groups),
                () -> states().values().stream().allMatch(state -> state == KafkaStreams.State.RUNNING));
    }

    /**
     * Every 10 s, or twice within a shorter limit: a transaction whose coordinator lost its markers stalls the
     * partitions it is open on, a restart included, until the watch settles it as its coordinator recorded it.
     */
    private static Duration watchInterval(Duration hangingAfter) {
        Duration half = hangingAfter.dividedBy(2);
        return half.compareTo(WATCH_LOOK) < 0 ? half : WATCH_LOOK;
    }

    public static CognitionRuntime start(Settings settings) {
        return start(settings, Map.of());
    }

    /**
     * @param skills skills to publish before the topologies start, so their global stores hold them from the first
     *               record on (a request naming a skill the store has not read yet would be dead-lettered); the
     *               built-in personas are published then too, where the topic lacks them
     */
    public static CognitionRuntime start(Settings settings, Map<String, Skill> skills) {
        return start(settings, skills, settings.clientProperties());
    }

    /**
     * @param governance the client settings the skills and built-in personas are published with: on a secured
     *                   cluster only the governance principal may write them, not the app's
     */
    public static CognitionRuntime start(Settings settings, Map<String, Skill> skills,
                                         Map<String, Object> governance) {
        if (!FatalErrors.jvmEndsOnOutOfMemory()) {
            LOG.warn("this JVM runs without -XX:+ExitOnOutOfMemoryError: an OutOfMemoryError outside the app's "
                    + "stream threads (the embedded broker's) would leave the process up and answering nothing; "
                    + "bin/cognition and the container image set it (docs/operations.md)");
        }
        Map<String, Object> client = settings.clientConfig();
        Topics topics;
        try (Admin admin = Admin.create(client)) {
            Topics named = new Topics(AvroSerdes.forRegistry(settings.schemaRegistryUrl()), OutputLimits.defaults(),
                    settings.tenants());
            TopicProvisioner.ensure(admin, named, settings.partitions(), settings.replicationFactor());
            topics = new Topics(named.avro(), OutputLimits.read(admin,
                    named.all().stream().map(Topic::name).toList(), OutputLimits.DEFAULT_MAX_REQUEST_BYTES),
                    settings.tenants());
        }
        requireRoomForLetters(topics.limits());
        int memoryPartitions = memoryPartitions(client, topics);
        Map<String, Object> publisher = new HashMap<>(governance);
        publisher.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        // Published while the parts are built (a second of each start), and done before any capability is built, so
        // that its global stores hold them from the first record.
        CompletableFuture<Void> published = CompletableFuture.runAsync(() -> {
            if (!skills.isEmpty()) {
                Map<String, Skill> changed = Publisher.publishChanged(publisher, topics.skills, skills);
                LOG.info("skills: {} of {} changed and published to {}", changed.size(), skills.size(),
                        topics.skills.name());
            }
            publishDefaultPersonas(publisher, topics);
        }, publishing -> new Thread(publishing, "publish-skills-and-personas").start());
        // An endpoint's outages stall its calls rather than fail them; the replay model has none. One client per
        // endpoint, shared by the model worker, the compression tiers and the council's role workers.
        ModelEndpoints endpoints = new ModelEndpoints(settings.model());
        Map<String, KafkaStreams> streams = new LinkedHashMap<>();
        List<Worker> workers = new ArrayList<>();
        TransactionWatch watch = null;
        CognitionRuntime runtime = null;
        // What a later step's failure would leave running (clients, MCP server processes, heartbeats) is closed
        // before the failure is thrown: a caller that starts again, or goes on without us, finds none of it.
        try {
            Pipeline.Parts parts = Pipeline.Parts.of(settings, endpoints);
            join(published);
            Map<String, RestoreLog> restoreLogs = new LinkedHashMap<>();
            for (Map.Entry<String, Pipeline.Capability> entry : Pipeline.capabilities(parts).entrySet()) {
                String capability = entry.getKey();
                Properties props = StreamsSettings.of(settings, capability,
                        entry.getValue().secondaryInputs().apply(topics));
                props.put(AssemblyTopology.MEMORY_PARTITIONS_CONFIG, memoryPartitions);
                // Kafka's clients; the main consumer reads a corrupted task's fetched records again (StreamsClients).
                KafkaStreams app = new KafkaStreams(Pipeline.topology(capability, topics, parts, props), props,
                        new StreamsClients());
                // A bug that escapes the dead-letter handlers kills one thread, not the app: the task is retried from
                // its last committed transaction by the replacement thread.
                RestoreLog restoreLog = new RestoreLog(capability);
                restoreLogs.put(capability, restoreLog);
                app.setStateListener(restoreLog);
                app.setGlobalStateRestoreListener(restoreLog);
                app.setUncaughtExceptionHandler(error -> {
                    if (FatalErrors.outOfMemory(error)) {
                        FatalErrors.haltOnOutOfMemory(capability + "'s stream thread", error);
                    }
                    LOG.error("{} stream thread failed, replacing it", capability, error);
                    return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
                });
                streams.put(capability, app);
            }
            if (settings.tuning().groupProtocol() == GroupProtocol.STREAMS) {
                try (Admin admin = Admin.create(client)) {
                    configureStreamsGroups(admin, settings, streams.keySet());
                }
            }
            ModelClient model = settings.model().usesReplay() ? ReplayModel.bundled()
                    : settings.model().modelName().map(name -> ModelEndpoints.answeringAs(
                            endpoints.at(settings.model().endpoint().get()), name))
                            .orElseGet(() -> endpoints.at(settings.model().endpoint().get()));
            AnswerStreams answers = settings.streamAnswers() ? new StreamedAnswers(client, topics, parts.router())
                    : AnswerStreams.OFF;
            ModelWorker worker = new ModelWorker(client, settings.applicationId() + MODEL_WORKER,
                    InstanceId.of(settings.stateDir()), topics, model, settings.model().concurrency(),
                    settings.tuning().sessionTimeout(), answers);
            // The previews close after the loop (and the endpoints' clients after every loop): a call it gives up on
            // then reaches no one.
            workers.add(Worker.of("model-worker", worker, answers));
            workers.add(Worker.of("memory-writer", new MemoryWriter(client, settings.applicationId() + MEMORY_WRITER,
                    InstanceId.of(settings.stateDir()), topics, parts.memoryModel(), memoryPartitions,
                    settings.tuning().sessionTimeout()), () -> { }));
            if (settings.executor().enabled()) {
                workers.add(executor(settings, topics, parts.signer()));
            }
            for (RoleWorker role : CouncilRoles.build(settings, topics, client, publisher, endpoints)) {
                role.start(); // heartbeats at once: the role is active before the first proposal it votes on
                workers.add(Worker.of("council-role", role, () -> { }));
            }
            // A broker can lose a transaction's markers and leave it open for good (docs/reliability.md): abort what
            // is ours and safe to, say where the rest is.
            List<String> ownPrefixes = new ArrayList<>(List.of(settings.applicationId() + MODEL_WORKER + "-",
                    settings.applicationId() + EXECUTOR + "-", settings.applicationId() + CouncilRoles.GROUP,
                    settings.applicationId() + MEMORY_WRITER + "-"));
            streams.keySet().forEach(capability -> ownPrefixes.add(
                    StreamsSettings.applicationId(settings.applicationId(), capability) + "-"));
            watch = new TransactionWatch(client, settings.applicationId(), settings.bootstrapServers(),
                    topics.all().stream().map(Topic::name).toList(), settings.tuning().hangingTransactionAfter(),
                    id -> ownPrefixes.stream().anyMatch(id::startsWith), settings.tuning().abortHangingTransactions())
                    .every(watchInterval(settings.tuning().hangingTransactionAfter()));
            if (settings.tuning().fenceDeparted()) {
                // A killed instance's open transactions hold the survivor's read_committed readers until they end: end
                // them as soon as its members are gone, not at their timeout (docs/reliability.md, "Fencing the dead
                // instance").
                watch.fencingDeparted(new DepartedInstances(InstanceId.of(settings.stateDir()),
                        settings.tuning().groupProtocol() == GroupProtocol.CLASSIC
                                ? streams.keySet().stream().map(capability -> StreamsSettings.applicationId(
                                        settings.applicationId(), capability)).toList()
                                // KIP-1071's streams groups have no static members to tell an instance by, and are not
                                // consumer groups to describe: only the workers' ids are fenced there.
                                : List.of(),
                        workerGroups(settings)),
                        FENCE_LOOK);
            }
            runtime = new CognitionRuntime(settings, topics, streams, restoreLogs, workers, watch,
                    endpoints);
            startAll(streams.values());
            workers.forEach(running -> running.thread().start());
        } catch (RuntimeException | Error failed) {
            abandon(failed, runtime, streams, workers, watch, endpoints);
            throw failed;
        }
        LOG.info("cognition streams running against {} ({}; model: {})", settings.bootstrapServers(),
                topics.avro().describe(), settings.model().endpoint().orElse("replay model"));
        return runtime;
    }

    /** Closes what a start that {@code failed} had built; what fails to close is added to the failure. */
    private static void abandon(Throwable failed, CognitionRuntime runtime, Map<String, KafkaStreams> streams,
                                List<Worker> workers, TransactionWatch watch, ModelEndpoints endpoints) {
        if (runtime != null) {
            closing(failed, runtime);
            return;
        }
        stopParts(workers, streams, endpoints, (part, e) -> failed.addSuppressed(e));
        if (watch != null) {
            closing(failed, watch);
        }
    }

    /**
     * Stops the workers, then every capability, then the model endpoints: by a runtime that stops, and by a start
     * that failed. What fails to close is given to {@code failure} with the part's name, and the rest still closes.
     */
    private static void stopParts(List<Worker> workers, Map<String, KafkaStreams> streams, ModelEndpoints endpoints,
                                  BiConsumer<String, Exception> failure) {
        for (Worker running : workers) {
            try {
                running.loop().close();
                running.thread().join(Duration.ofSeconds(15).toMillis());
                running.after().close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                failure.accept(running.thread().getName(), e);
            }
        }
        // Close them all at once: each waits for its threads to commit, and they do not depend on each other.
        // Static members stay in their groups unless they leave: leaving, an instance that stops hands its tasks
        // to the others at once.
        streams.values().forEach(app -> app.close(leaving(Duration.ZERO)));
        streams.forEach((capability, app) -> {
            if (!app.close(leaving(CAPABILITY_CLOSE))) {
                // Its threads are still committing and closing their stores when the process ends: what they leave
                // unclosed, the next start restores from the changelogs.
                LOG.warn("{} did not stop within {} s (still {}): its tasks may be restored from their changelogs "
                        + "at the next start", capability, CAPABILITY_CLOSE.toSeconds(), app.state());
            }
        });
        // After every caller (the loops, the compression tiers): a call given up on then reaches no one.
        endpoints.close();
    }

    private static void closing(Throwable failed, AutoCloseable part) {
        try {
            part.close();
        } catch (Exception e) {
            failed.addSuppressed(e);
        }
    }

    /**
     * Starts every capability at once. {@link KafkaStreams#start} returns only after its global stores are loaded
     * and each of its tasks' local stores was opened and closed to read its offsets (KIP-1035): about a second per
     * capability on a restart, mostly waiting on the broker and the disk, which one after another added up.
     */
    private static void startAll(Collection<KafkaStreams> apps) {
        CompletableFuture<?>[] starts = apps.stream()
                .map(app -> CompletableFuture.runAsync(app::start, start -> new Thread(start, "start-streams").start()))
                .toArray(CompletableFuture[]::new);
        join(CompletableFuture.allOf(starts));
    }

    /** Waits for {@code work}, and throws what it failed with as it was thrown. */
    private static void join(CompletableFuture<?> work) {
        try {
            work.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** The workers' consumer groups: the model worker's, the executor's and each council role worker's. */
    private static List<String> workerGroups(Settings settings) {
        List<String> groups = new ArrayList<>(List.of(settings.applicationId() + MODEL_WORKER,
                settings.applicationId() + EXECUTOR, settings.applicationId() + MEMORY_WRITER));
        settings.roleWorkers().roles().forEach(role -> groups.add(CouncilRoles.groupId(settings, role)));
        return groups;
    }

    /** Under the streams protocol a group's session and standbys are set on the broker, before its members join. */
    private static void configureStreamsGroups(Admin admin, Settings settings, Collection<String> capabilities) {
        List<AlterConfigOp> ops = StreamsSettings.groupConfigs(settings).entrySet().stream()
                .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        Map<ConfigResource, Collection<AlterConfigOp>> groups = new HashMap<>();
        for (String capability : capabilities) {
            groups.put(new ConfigResource(ConfigResource.Type.GROUP,
                    StreamsSettings.applicationId(settings.applicationId(), capability)), ops);
        }
        try {
            admin.incrementalAlterConfigs(groups).all().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while configuring the streams groups", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot configure the streams groups " + groups.keySet()
                    + " (the brokers' group.streams.min.session.timeout.ms and min.heartbeat.interval.ms bound "
                    + "--session-timeout): " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * The executor and its MCP servers, started here so that the tools they offer are on cognition.tools before
     * the first packet is assembled.
     */
    private static Worker executor(Settings settings, Topics topics, DecisionSignatures.Signer signer) {
        ExecutorSettings tools = settings.executor();
        Map<String, Object> client = settings.clientConfig();
        requireLedgerPartitions(client, topics);
        McpServers servers = new McpServers(tools.mcpServers(), tools.callTimeout(), tools.maxResultBytes());
        try {
            return executor(settings, topics, signer, servers);
        } catch (RuntimeException | Error failed) {
            // Their processes would outlive a start that fails here.
            closing(failed, servers);
            throw failed;
        }
    }

    private static Worker executor(Settings settings, Topics topics, DecisionSignatures.Signer signer,
                                   McpServers servers) {
        ExecutorSettings tools = settings.executor();
        Map<String, Object> client = settings.clientConfig();
        List<McpServers.OfferedTool> offered = servers.start();
        Map<String, ToolDescriptor> descriptors = new LinkedHashMap<>(ToolCatalog.descriptors(offered,
                settings.applicationId(), Instant.now()));
        Optional<ToolExecution.ShellTool> shell = tools.shell().map(ShellRunner::new).map(runner -> {
            LOG.warn("shell executor ON: approved shell.run calls run as this process's user; isolation: {}",
                    runner.isolation());
            return new ShellCalls(runner);
        });
        if (shell.isPresent()) {
            ToolDescriptor shellTool = ToolCatalog.shell(settings.applicationId(), Instant.now());
            descriptors.put(shellTool.getName(), shellTool);
        }
        Publisher.publishChanged(client, topics.tools, descriptors);
        List<PublicKey> trusted = new ArrayList<>();
        trusted.add(signer.publicKey());
        tools.trustedKeys().forEach(file -> trusted.add(Ed25519.readPublicKey(file)));
        ExecutorWorker executor = new ExecutorWorker(client, settings.applicationId() + EXECUTOR,
                InstanceId.of(settings.stateDir()), topics, new ToolExecution(servers, shell, tools.callTimeout()),
                new DecisionSignatures.Verifier(trusted), tools.threads(), settings.tuning().sessionTimeout());
        LOG.info("executor running {} tools of {} MCP servers ({}){}; approvals signed by key {}", offered.size(),
                tools.mcpServers().size(), String.join(", ", servers.names()), shell.isPresent() ? " and shell.run"
                        : "", signer.keyId());
        return Worker.of("executor", executor, servers);
    }

    /**
     * Memory entries sit in the partition of their scope's owner, beside the owner's requests, which the assembly
     * reads together: cognition.memory needs as many partitions as the requests topics.
     */
    private static int memoryPartitions(Map<String, Object> client, Topics topics) {
        try (Admin admin = Admin.create(client)) {
            List<String> names = new ArrayList<>(topics.requestTopicNames());
            names.add(Topics.COGNITION_MEMORY);
            Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames().get();
            int memory = described.get(Topics.COGNITION_MEMORY).partitions().size();
            for (String requests : topics.requestTopicNames()) {
                int count = described.get(requests).partitions().size();
                if (count != memory) {
                    throw new IllegalStateException(Topics.COGNITION_MEMORY + " has " + memory + " partitions but "
                            + requests + " has " + count + ": memory sits beside its sessions' requests and needs as "
                            + "many (recreate the smaller topic with as many partitions)");
                }
            }
            return memory;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot describe " + Topics.COGNITION_MEMORY + ": "
                    + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The executor writes a decision's ledger entry to the same partition number: the ledger needs as many. */
    private static void requireLedgerPartitions(Map<String, Object> client, Topics topics) {
        try (Admin admin = Admin.create(client)) {
            Map<String, TopicDescription> described = admin.describeTopics(List.of(Topics.TOOL_DECISIONS,
                    Topics.TOOL_LEDGER)).allTopicNames().get();
            int decisions = described.get(Topics.TOOL_DECISIONS).partitions().size();
            int ledger = described.get(Topics.TOOL_LEDGER).partitions().size();
            if (ledger < decisions) {
                throw new IllegalStateException(Topics.TOOL_LEDGER + " has " + ledger + " partitions but "
                        + Topics.TOOL_DECISIONS + " has " + decisions + ": the executor's ledger needs at least as "
                        + "many (kafka-topics --alter --partitions " + decisions + ")");
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot describe the tool topics: " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * The built-in personas, each only when cognition.personas has never held its name: an operator's own version
     * of one survives restarts, and so does a deletion while its tombstone is on the topic.
     */
    private static void publishDefaultPersonas(Map<String, Object> client, Topics topics) {
        Set<String> named = new HashSet<>();
        TopicReader.readToEnd(client, topics.personas.name(), Optional.empty(), record -> {
            if (record.key() != null) {
                named.add(new String(record.key(), StandardCharsets.UTF_8));
            }
        });
        Map<String, Persona> missing = new LinkedHashMap<>(Personas.builtIns(Instant.now()));
        missing.keySet().removeAll(named);
        if (!missing.isEmpty()) {
            Publisher.publish(client, topics.personas, missing);
            LOG.info("published the built-in personas {} to {}", missing.keySet(), topics.personas.name());
        }
    }

    /** A letter the dead-letter topic refused would stall its partition: the topic must take the largest one. */
    private static void requireRoomForLetters(OutputLimits limits) {
        int room = limits.maxValueBytes(Topics.COGNITION_DLQ);
        if (room < DeadLetters.MAX_LETTER_BYTES) {
            throw new IllegalStateException(Topics.COGNITION_DLQ + " takes records of at most " + room + " bytes, "
                    + "but a dead letter can have " + DeadLetters.MAX_LETTER_BYTES + ": raise its max.message.bytes");
        }
    }

    public Topics topics() {
        return topics;
    }

    /**
     * How long a clean stop waits for the app's transactions before an embedded broker stops: past the transaction
     * timeout of its producers, after which the coordinator aborts one a closed producer left open.
     */
    public Duration transactionsDrain() {
        return GroupTimeouts.transaction(settings.tuning().sessionTimeout()).plusSeconds(5);
    }

    /** Each capability's Kafka Streams state. */
    public Map<String, KafkaStreams.State> states() {
        Map<String, KafkaStreams.State> states = new LinkedHashMap<>();
        streams.forEach((name, app) -> states.put(name, app.state()));
        return states;
    }

    /** Each capability's active tasks on this instance, e.g. {@code 0_1}: sub-topology 0, partition 1. */
    public Map<String, Set<String>> activeTasks() {
        Map<String, Set<String>> tasks = new LinkedHashMap<>();
        streams.forEach((name, app) -> tasks.put(name, app.metadataForLocalThreads().stream()
                .flatMap(thread -> thread.activeTasks().stream())
                .map(task -> task.taskId().toString())
                .collect(Collectors.toCollection(TreeSet::new))));
        return tasks;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * What keeps this instance from being ready (Kubernetes' readiness probe, {@code /health/ready}), or empty: every
     * capability RUNNING, every worker's thread alive, and the brokers answering within {@link #BROKER_CHECK}.
     */
    public Optional<String> notReady() {
        List<String> missing = new ArrayList<>();
        states().forEach((capability, state) -> {
            if (state != KafkaStreams.State.RUNNING) {
                missing.add(capability + " is " + state);
            }
        });
        workers.stream().filter(worker -> !worker.thread().isAlive())
                .forEach(worker -> missing.add(worker.thread().getName() + " has stopped"));
        try {
            if (admin().describeCluster().nodes().get(BROKER_CHECK.toMillis(), TimeUnit.MILLISECONDS).isEmpty()) {
                missing.add("the cluster names no broker");
            }
        } catch (ExecutionException | TimeoutException e) {
            missing.add("no broker answers (" + settings.bootstrapServers() + "): " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            missing.add("interrupted");
        }
        return missing.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", missing));
    }

    private synchronized Admin admin() {
        if (healthAdmin == null) {
            healthAdmin = Admin.create(settings.clientConfig());
        }
        return healthAdmin;
    }

    /** Blocks until every capability is RUNNING, or fails after the timeout. */
    public void awaitRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!states().values().stream().allMatch(state -> state == KafkaStreams.State.RUNNING)) {
            if (states().values().stream().anyMatch(state -> state == KafkaStreams.State.ERROR
                    || state == KafkaStreams.State.NOT_RUNNING)) {
                throw new IllegalStateException("kafka streams stopped: " + states());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("kafka streams not running after " + timeout + ": " + states());
            }
            Thread.sleep(100);
        }
    }

    /**
     * Blocks until every capability is RUNNING, however long its restore takes, telling {@code progress} every
     * {@code every} which capabilities are not yet running and what they have restored so far. Fails only if one
     * stops (ERROR, or NOT_RUNNING: being closed).
     */
    public void awaitRunning(Duration every, Consumer<String> progress) throws InterruptedException {
        long started = System.nanoTime();
        long nextSay = started + every.toNanos();
        while (!states().values().stream().allMatch(state -> state == KafkaStreams.State.RUNNING)) {
            if (states().values().stream().anyMatch(state -> state == KafkaStreams.State.ERROR
                    || state == KafkaStreams.State.NOT_RUNNING)) {
                throw new IllegalStateException("kafka streams stopped: " + states());
            }
            if (System.nanoTime() > nextSay) {
                nextSay += every.toNanos();
                List<String> waiting = new ArrayList<>();
                states().forEach((capability, state) -> {
                    if (state != KafkaStreams.State.RUNNING) {
                        waiting.add(capability + " " + state + " (restored " + restoreLogs.get(capability)
                                .restoredSoFar() + " records so far)");
                    }
                });
                progress.accept("starting for " + (System.nanoTime() - started) / 1_000_000_000 + " s, waiting for "
                        + String.join(", ", waiting));
            }
            Thread.sleep(100);
        }
    }

    private static CloseOptions leaving(Duration timeout) {
        return CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(timeout);
    }

    @Override
    public void close() {
        close(Duration.ZERO);
    }

    /**
     * Stops the workers, then every capability, then waits at most {@code transactionsDrain} until no transaction
     * of the app is open or being completed at its coordinator: before an embedded broker stops, so that it stops
     * with no marker on its way (docs/operations.md, "Stopping").
     */
    public void close(Duration transactionsDrain) {
        long stopping = System.nanoTime();
        LOG.info("stopping: the workers, then every capability");
        catchUpLog.close();
        stopParts(workers, streams, endpoints, (part, e) -> LOG.warn("closing {}: {}", part, e.toString()));
        try {
            if (!transactionsDrain.isZero() && !transactionsDrain.isNegative()) {
                transactionWatch.awaitNoneInFlight(transactionsDrain);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            transactionWatch.close();
        }
        synchronized (this) {
            if (healthAdmin != null) {
                healthAdmin.close(Duration.ofSeconds(5));
            }
        }
        LOG.info("stopped ({} ms)", (System.nanoTime() - stopping) / 1_000_000);
    }
}
