package io.cognitionstreams.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.ObjectName;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) running inside this JVM from Kafka's own
 * jars, so the runtime works without an external cluster.
 *
 * <p>Why it is configured this way:
 * <ul>
 *   <li>Replication factor 1 and min ISR 1 for the offsets, transaction-state and share-coordinator topics: there is
 *       only one replica. With Kafka's defaults (3) those internal topics are never created, so consumer groups and
 *       transactions ({@code exactly_once_v2}) hang. One partition each: fifty buys nothing on one node and only
 *       slows the first group join and the first transaction.</li>
 *   <li>{@code log.cleaner.dedupe.buffer.size} of 2 MiB: the cleaner allocates its dedupe buffer up front; the
 *       128 MiB default took peak RSS from about 340 MB to about 600 MB. 2 MiB is plenty for compacted changelogs
 *       of a local runtime.</li>
 *   <li>Initial rebalance delays of 0: the 3 s default delays every application start and buys nothing with one
 *       instance per group.</li>
 *   <li>A broker session of 60 s (heartbeats every 0.5 s): broker and controller share the process, so a heartbeat
 *       is late only when the whole JVM stalls, and on a loaded machine it was, by more than the 3 s it used to be:
 *       the controller fenced the live broker, which took every partition's leader away, and with them
 *       transaction markers (KAFKA-20734, below). The session no longer slows a restart: the dead incarnation is
 *       fenced before the broker starts, with a session of its own ({@link #fencePreviousIncarnation}).</li>
 *   <li>Listeners bind 127.0.0.1 only: the broker is not meant to be reachable from other hosts (and without
 *       {@link BrokerSettings#sasl()} has no authentication); an explicit IPv4 address also avoids {@code localhost}
 *       resolving to {@code ::1}.</li>
 *   <li>Secured ({@link BrokerSettings#sasl()}): clients log in with SCRAM-SHA-512 and every request is checked
 *       by Kafka's StandardAuthorizer against ACLs, denied when none matches; the broker's own user is the only
 *       super user. The controller listener uses SASL PLAIN with that same user instead: SCRAM credentials live in
 *       the metadata log the controller serves, so they cannot authenticate the connections that read it. Both
 *       are unencrypted, on loopback. The broker's own SCRAM user is created when the storage is formatted (its
 *       self-connections need it from the first second); every user is then upserted, as the broker's own, at
 *       every start, so a user added or a password rotated later takes effect on the next start.</li>
 *   <li>A static voter ({@code controller.quorum.voters}) rather than a dynamic quorum: static voters are not
 *       recorded in the metadata log, so the controller port may differ between restarts.</li>
 *   <li>The cluster id lives in {@code <dataDir>/cluster.id}: Kafka refuses a log directory formatted for another
 *       cluster id, so the same id is reused on every start and formatting only takes effect the first time.</li>
 *   <li>No controlled shutdown ({@code controlled.shutdown.enable=false}): on one node there is nowhere to move
 *       leadership, so a controlled shutdown only takes every partition's leader away while the transaction
 *       coordinator still runs, and the coordinator drops the markers of a leaderless partition as if the topic
 *       were deleted (KAFKA-20734, not fixed in 4.3.1 or 4.4.0): a hanging transaction. Without it the broker
 *       just stops; what the coordinator had not finished it completes from its log at the next start.</li>
 *   <li>The previous incarnation is fenced before the broker starts ({@link #fencePreviousIncarnation}). Started
 *       on a data directory whose last broker was not fenced (killed, or stopped without controlled shutdown), a
 *       combined node publishes its stale metadata first: it leads every partition again and its coordinator
 *       starts completing the transactions it had prepared, until its controller fences the dead incarnation a
 *       broker session later, takes every leader away and the coordinator drops the markers it was sending (the
 *       same KAFKA-20734 path). A controller alone on the same metadata log fences it first, with no broker to
 *       act on the stale image; the node then starts with every partition leaderless, and its coordinator loads
 *       only once the broker is unfenced and leads them all again (docs/reliability.md, "Kill and restart").</li>
 * </ul>
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);

    private static final String HOST = "127.0.0.1";
    private static final String NODE_ID = "1";
    private static final InetAddress LOOPBACK = loopback();
    private static final String CLUSTER_ID_FILE = "cluster.id";
    private static final String SERVER_PROPERTIES_FILE = "server.properties";
    private static final String LOG_DIR = "kafka-logs";
    /** Kafka's own metadata log, in the log directory: there once the node has started. */
    private static final String METADATA_LOG = "__cluster_metadata-0";
    /** The controller's gauges of the registered brokers (Kafka's documented KRaft monitoring metrics). */
    private static final String FENCED_BROKERS = "kafka.controller:type=KafkaController,name=FencedBrokerCount";
    private static final String ACTIVE_BROKERS = "kafka.controller:type=KafkaController,name=ActiveBrokerCount";
    /** A live broker is never fenced for a late heartbeat on one node: it would lose every leader. */
    private static final Duration BROKER_SESSION = Duration.ofSeconds(60);
    /** The fencing controller's broker session: no broker heartbeats to it, so only the dead one must expire. */
    private static final Duration FENCING_SESSION = Duration.ofMillis(500);
    /** A registration never seen (a node that died before its broker registered) leaves nothing to fence. */
    private static final Duration FENCING_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final String SCRAM = "SCRAM-SHA-512";
    /** kafka-configs' default for a SCRAM credential. */
    private static final int SCRAM_ITERATIONS = 4096;

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path dataDir;
    private final String clusterId;
    private final Object closeLock = new Object();
    private boolean closed;

    private EmbeddedKafkaBroker(KafkaRaftServer server, String bootstrapServers, Path dataDir, String clusterId) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.dataDir = dataDir;
        this.clusterId = clusterId;
    }

    /**
     * Starts the broker and returns once it answers a describe-cluster request.
     *
     * @throws BrokerStartException if a port is taken, the data directory is unusable, or the broker is not ready
     *                              within {@link BrokerSettings#readyTimeout()} of its start (the fencing of its
     *                              previous incarnation before it is bounded apart); nothing is left running then
     */
    public static EmbeddedKafkaBroker start(BrokerSettings settings) {
        Path dataDir = settings.dataDir().toAbsolutePath().normalize();
        Path logDir = dataDir.resolve(LOG_DIR);
        Ports ports = choosePorts(settings.brokerPort(), settings.controllerPort());
        String bootstrap = HOST + ":" + ports.broker();

        createDirectories(logDir);
        String clusterId = loadOrCreateClusterId(dataDir, logDir);
        Properties props = serverProperties(logDir, ports, settings.sasl());
        format(writeProperties(dataDir.resolve(SERVER_PROPERTIES_FILE), props), clusterId, logDir, settings.sasl());
        if (Files.isDirectory(logDir.resolve(METADATA_LOG))) {
            fencePreviousIncarnation(props);
        }
        // From here: the fencing, bounded by itself, is not what the timeout measures.
        long deadline = System.nanoTime() + settings.readyTimeout().toNanos();

        KafkaConfig config;
        try {
            config = KafkaConfig.fromProps(props, false);
        } catch (RuntimeException e) {
            throw new BrokerStartException("Invalid embedded Kafka broker configuration: " + e.getMessage(), e);
        }
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        try {
            server.startup();
            awaitReady(bootstrap, settings.sasl(), deadline);
            if (settings.sasl().isPresent()) {
                upsertScramUsers(bootstrap, settings.sasl().get(), deadline);
            }
        } catch (TimeoutException e) {
            stop(server);
            throw new BrokerStartException("Embedded Kafka broker at " + bootstrap + " was not ready within "
                    + settings.readyTimeout().toMillis() + " ms (data dir " + dataDir + ")", e);
        } catch (InterruptedException e) {
            stop(server);
            Thread.currentThread().interrupt();
            throw new BrokerStartException("Interrupted while starting the embedded Kafka broker at " + bootstrap, e);
        } catch (RuntimeException | Error e) {
            stop(server);
            Optional<BindException> bind = findCause(e, BindException.class);
            if (bind.isPresent()) {
                throw new BrokerStartException("Could not bind " + HOST + " port " + ports.broker()
                        + " or controller port " + ports.controller() + " (" + e.getMessage() + "). "
                        + advice(), e);
            }
            throw new BrokerStartException("Embedded Kafka broker failed to start (data dir " + dataDir + "): "
                    + e.getMessage(), e);
        }
        log.info("Embedded Kafka broker ready at {} (cluster id {}, data dir {})", bootstrap, clusterId, dataDir);
        return new EmbeddedKafkaBroker(server, bootstrap, dataDir, clusterId);
    }

    /** {@code host:port} of the client listener, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The absolute data directory. */
    public Path dataDir() {
        return dataDir;
    }

    /** The cluster id stored in the data directory; the same across restarts. */
    public String clusterId() {
        return clusterId;
    }

    /** Stops the broker and waits until it is down. Later calls, including concurrent ones, do nothing. */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
            stop(server);
            log.info("Embedded Kafka broker at {} stopped", bootstrapServers);
        }
    }

    /**
     * What a client of a secured broker sets to log in as {@code user}: SCRAM-SHA-512 over SASL_PLAINTEXT. The
     * password is quoted into a JAAS line, so {@link SaslUsers} allows only characters that need no escaping.
     */
    public static Map<String, Object> scramClientSettings(String user, String password) {
        return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", SCRAM,
                "sasl.jaas.config", jaas("org.apache.kafka.common.security.scram.ScramLoginModule", user, password,
                        ""));
    }

    private static Properties serverProperties(Path logDir, Ports ports, Optional<SaslUsers> sasl) {
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", NODE_ID);
        props.put("controller.quorum.voters", "1@" + HOST + ":" + ports.controller());
        String client = sasl.isPresent() ? "CLIENT" : "PLAINTEXT";
        props.put("listeners", client + "://" + HOST + ":" + ports.broker() + ",CONTROLLER://" + HOST + ":"
                + ports.controller());
        props.put("advertised.listeners", client + "://" + HOST + ":" + ports.broker());
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", client);
        if (sasl.isPresent()) {
            SaslUsers users = sasl.get();
            props.put("listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
            props.put("listener.name.client.sasl.enabled.mechanisms", SCRAM);
            props.put("sasl.mechanism.inter.broker.protocol", SCRAM);
            props.put("listener.name.client.scram-sha-512.sasl.jaas.config",
                    jaas("org.apache.kafka.common.security.scram.ScramLoginModule", users.admin(),
                            users.adminPassword(), ""));
            props.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
            props.put("sasl.mechanism.controller.protocol", "PLAIN");
            props.put("listener.name.controller.plain.sasl.jaas.config",
                    jaas("org.apache.kafka.common.security.plain.PlainLoginModule", users.admin(),
                            users.adminPassword(), " user_" + users.admin() + "=\"" + users.adminPassword() + "\""));
            props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            props.put("allow.everyone.if.no.acl.found", "false");
            props.put("super.users", "User:" + users.admin());
        } else {
            props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        }
        props.put("log.dirs", logDir.toString());
        props.put("default.replication.factor", "1");
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("share.coordinator.state.topic.num.partitions", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("group.streams.initial.rebalance.delay.ms", "0");
        props.put("broker.session.timeout.ms", String.valueOf(BROKER_SESSION.toMillis()));
        props.put("broker.heartbeat.interval.ms", "500");
        // On one machine a shorter group session is the user's to choose (run --session-timeout): down to 2 s, not
        // Kafka's 6 s floor; and a dead producer's timed-out transaction is aborted within half a second, not ten
        // (the check walks the coordinator's transactions in memory: cheap with one app's producers).
        props.put("group.min.session.timeout.ms", "2000");
        props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500");
        // The same floor for a streams-protocol group (run --group-protocol streams), whose session and heartbeat
        // the app sets on the group: Kafka's floors are 45 s and 5 s.
        props.put("group.streams.min.session.timeout.ms", "2000");
        props.put("group.streams.min.heartbeat.interval.ms", "500");
        props.put("log.cleaner.dedupe.buffer.size", "2097152");
        props.put("controlled.shutdown.enable", "false");
        // After a kill the broker re-reads each log's active segment whole, flushed or not (LogLoader): with Kafka's
        // 1 GiB segments that was every log whole, 2.7 GB and 4 s of a start at 100,000 sessions. Segments of 32 MiB
        // bound that to the last 32 MiB of each log. A segment is flushed when it rolls, and the flushed offsets are
        // checkpointed every 10 s (not 60), so a kill re-reads at most the segments that rolled in its last 10 s
        // besides. Rolled segments of compacted topics can also be cleaned, which 1 GiB segments seldom were.
        props.put("log.segment.bytes", String.valueOf(32 * 1024 * 1024));
        props.put("log.flush.offset.checkpoint.interval.ms", "10000");
        // Requests read but not yet handled, in bytes: unbounded by default (500 of up to 100 MiB each), which a
        // burst of producers could fill in the heap the broker shares with the app; past this the broker stops
        // reading. One request may hold 16 MiB (the clients send 1 MiB at most: max.request.size).
        props.put("socket.request.max.bytes", String.valueOf(16 * 1024 * 1024));
        props.put("queued.max.request.bytes", String.valueOf(64L * 1024 * 1024));
        return props;
    }

    /**
     * Runs the node's controller alone on the metadata log until it has fenced the broker's previous incarnation,
     * then stops it. Nothing acts on the stale metadata meanwhile: there is no broker, so no partition leader and
     * no transaction coordinator. The controller fences the dead incarnation once its session, which starts when
     * the controller becomes active, has expired: {@link #FENCING_SESSION} here. An incarnation fenced already
     * (a data directory of a version with controlled shutdown) is seen fenced at once.
     */
    private static void fencePreviousIncarnation(Properties brokerProps) {
        long started = System.nanoTime();
        Properties props = new Properties();
        props.putAll(brokerProps);
        props.put("process.roles", "controller");
        String controller = ((String) brokerProps.get("listeners")).replaceFirst("^.*(CONTROLLER://[^,]+).*$", "$1");
        props.put("listeners", controller);
        for (String brokerOnly : List.of("advertised.listeners", "inter.broker.listener.name",
                "sasl.mechanism.inter.broker.protocol", "controlled.shutdown.enable")) {
            props.remove(brokerOnly);
        }
        props.put("broker.session.timeout.ms", String.valueOf(FENCING_SESSION.toMillis()));
        props.put("broker.heartbeat.interval.ms", String.valueOf(FENCING_SESSION.toMillis() / 5));
        KafkaRaftServer fencing;
        try {
            fencing = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        } catch (RuntimeException e) {
            throw new BrokerStartException("Invalid configuration of the embedded broker's controller: "
                    + e.getMessage(), e);
        }
        try {
            fencing.startup();
            long until = System.nanoTime() + FENCING_TIMEOUT.toNanos();
            // Both gauges are 0 until the controller has loaded the metadata, then count our one broker.
            while (gauge(FENCED_BROKERS) < 1 || gauge(ACTIVE_BROKERS) > 0) {
                if (System.nanoTime() > until) {
                    log.warn("The embedded broker's previous incarnation was not seen fenced within {} ms ({} "
                            + "fenced, {} active); starting the broker all the same", FENCING_TIMEOUT.toMillis(),
                            gauge(FENCED_BROKERS), gauge(ACTIVE_BROKERS));
                    break;
                }
                Thread.sleep(POLL_INTERVAL.toMillis() / 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerStartException("Interrupted while fencing the embedded broker's previous incarnation", e);
        } catch (RuntimeException e) {
            throw new BrokerStartException("The embedded broker's controller failed to start: " + e.getMessage(), e);
        } finally {
            stop(fencing);
        }
        log.info("Fenced the embedded broker's previous incarnation before starting it ({} ms)",
                (System.nanoTime() - started) / 1_000_000);
    }

    /** A gauge of the controller running in this JVM; 0 while it has none. */
    private static int gauge(String name) {
        try {
            Object value = ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(name), "Value");
            return value instanceof Number number ? number.intValue() : 0;
        } catch (InstanceNotFoundException e) {
            return 0;
        } catch (JMException e) {
            throw new IllegalStateException("cannot read " + name + ": " + e, e);
        }
    }

    private static Ports choosePorts(int brokerPort, int controllerPort) {
        if (brokerPort != 0) {
            requireFree(brokerPort, "Port");
        }
        if (controllerPort != 0) {
            requireFree(controllerPort, "Controller port");
        }
        List<ServerSocket> held = new ArrayList<>();
        try {
            int broker = brokerPort != 0 ? brokerPort : holdFreePort(held, controllerPort);
            int controller = controllerPort != 0 ? controllerPort : holdFreePort(held, broker);
            return new Ports(broker, controller);
        } catch (IOException e) {
            throw new BrokerStartException("Could not find a free port on " + HOST + ": " + e.getMessage(), e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // only held to keep the two picks distinct
                }
            }
        }
    }

    private static void requireFree(int port, String what) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(LOOPBACK, port));
        } catch (IOException e) {
            throw new BrokerStartException(what + " " + port + " on " + HOST
                    + " is already in use, so the embedded Kafka broker cannot start. " + advice(), e);
        }
    }

    private static String advice() {
        return "Pass another port (0 picks a free one), or use a Kafka that is already running with "
                + "--bootstrap-servers.";
    }

    private static int holdFreePort(List<ServerSocket> held, int avoid) throws IOException {
        while (true) {
            ServerSocket socket = new ServerSocket(0, 1, LOOPBACK);
            held.add(socket);
            if (socket.getLocalPort() != avoid) {
                return socket.getLocalPort();
            }
        }
    }

    private static String loadOrCreateClusterId(Path dataDir, Path logDir) {
        Path idFile = dataDir.resolve(CLUSTER_ID_FILE);
        Optional<String> formattedId = formattedClusterId(logDir);
        String id;
        if (Files.exists(idFile)) {
            id = readString(idFile).trim();
            if (formattedId.isPresent() && !formattedId.get().equals(id)) {
                throw new BrokerStartException("Cluster id " + id + " in " + idFile + " does not match cluster id "
                        + formattedId.get() + " of the Kafka data in " + logDir
                        + ". Restore the original cluster.id or use another data directory.");
            }
        } else {
            id = formattedId.orElseGet(() -> Uuid.randomUuid().toString());
            writeAtomically(idFile, id + System.lineSeparator());
        }
        try {
            Uuid.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new BrokerStartException("Invalid cluster id '" + id + "' in " + idFile
                    + ". Restore the original cluster.id or use another data directory.", e);
        }
        return id;
    }

    private static Optional<String> formattedClusterId(Path logDir) {
        Path meta = logDir.resolve("meta.properties");
        if (!Files.exists(meta)) {
            return Optional.empty();
        }
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(meta)) {
            props.load(in);
        } catch (IOException e) {
            throw new BrokerStartException("Could not read " + meta + ": " + e.getMessage(), e);
        }
        return Optional.ofNullable(props.getProperty("cluster.id"));
    }

    private static String jaas(String module, String user, String password, String extra) {
        return module + " required username=\"" + user + "\" password=\"" + password + "\"" + extra + ";";
    }

    private static void format(Path propertiesFile, String clusterId, Path logDir, Optional<SaslUsers> sasl) {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of(
                "format", "-t", clusterId, "-c", propertiesFile.toString(), "--ignore-formatted"));
        sasl.ifPresent(users -> args.addAll(List.of("--add-scram",
                SCRAM + "=[name=" + users.admin() + ",password=" + users.adminPassword() + "]")));
        int rc;
        try (PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            rc = StorageTool.execute(args.toArray(String[]::new), out);
        } catch (Exception e) {
            throw new BrokerStartException("Could not format Kafka storage in " + logDir + ": " + e.getMessage()
                    + " " + output.toString(StandardCharsets.UTF_8).trim(), e);
        }
        String text = output.toString(StandardCharsets.UTF_8).trim();
        if (rc != 0) {
            throw new BrokerStartException("Could not format Kafka storage in " + logDir + " (exit " + rc + "): "
                    + text);
        }
        log.debug("Kafka storage format: {}", text);
    }

    /**
     * Creates or updates every SCRAM user, logged in as the broker's own user (created at format time). Kafka 4.3
     * does not take this request on the controller listener, so it goes through the client listener.
     */
    private static void upsertScramUsers(String bootstrap, SaslUsers users, long deadline)
            throws TimeoutException, InterruptedException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "embedded-broker-scram-users");
        props.putAll(scramClientSettings(users.admin(), users.adminPassword()));
        List<UserScramCredentialAlteration> upserts = new ArrayList<>();
        users.users().forEach((name, password) -> upserts.add(new UserScramCredentialUpsertion(name,
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), password)));
        long remainingMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        try (Admin admin = Admin.create(props)) {
            admin.alterUserScramCredentials(upserts).all().get(remainingMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new BrokerStartException("Could not create the SCRAM users " + users.users().keySet()
                    + ": " + e.getCause().getMessage(), e);
        }
    }

    private static void awaitReady(String bootstrap, Optional<SaslUsers> sasl, long deadline)
            throws TimeoutException, InterruptedException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "embedded-broker-readiness");
        sasl.ifPresent(users -> props.putAll(scramClientSettings(users.admin(), users.adminPassword())));
        Admin admin = Admin.create(props);
        try {
            Exception last = null;
            while (true) {
                long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (remainingMs <= 0) {
                    TimeoutException timeout = new TimeoutException("describeCluster returned no node in time");
                    if (last != null) {
                        timeout.initCause(last);
                    }
                    throw timeout;
                }
                try {
                    Collection<Node> nodes = admin
                            .describeCluster(new DescribeClusterOptions().timeoutMs((int) Math.min(remainingMs, 5_000)))
                            .nodes()
                            .get(remainingMs, TimeUnit.MILLISECONDS);
                    if (!nodes.isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    if (e.getCause() instanceof SaslAuthenticationException && sasl.isPresent()) {
                        // Retrying cannot help: the storage was formatted without this user or password.
                        throw new BrokerStartException("The broker's own user '" + sasl.get().admin()
                                + "' cannot log in: this data directory was first started without --secure, or "
                                + "with another password for it. Use a new data directory, or the secrets it was "
                                + "started with (" + e.getCause().getMessage() + ")", e);
                    }
                    last = e;
                }
                Thread.sleep(Math.min(POLL_INTERVAL.toMillis(), Math.max(1, remainingMs)));
            }
        } finally {
            admin.close(Duration.ofSeconds(5));
        }
    }

    private static void stop(KafkaRaftServer server) {
        try {
            server.shutdown();
        } catch (RuntimeException e) {
            log.warn("Embedded Kafka broker shutdown failed", e);
        }
        try {
            server.awaitShutdown();
        } catch (RuntimeException e) {
            log.warn("Waiting for the embedded Kafka broker to shut down failed", e);
        }
    }

    private static <T extends Throwable> Optional<T> findCause(Throwable error, Class<T> type) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return Optional.of(type.cast(t));
            }
        }
        return Optional.empty();
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new BrokerStartException("Could not create data directory " + dir + ": " + e.getMessage(), e);
        }
    }

    private static Path writeProperties(Path file, Properties props) {
        if (props.containsKey("super.users")) {
            ownerOnly(file);
        }
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            props.store(writer, "Written by EmbeddedKafkaBroker on every start; edits are overwritten");
        } catch (IOException e) {
            throw new BrokerStartException("Could not write " + file + ": " + e.getMessage(), e);
        }
        return file;
    }

    /** The file holds the broker's password: created empty, readable by its owner only, before it is written. */
    private static void ownerOnly(Path file) {
        try {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            log.warn("Cannot restrict {} to its owner on this file system: it holds the broker's password", file);
        } catch (IOException e) {
            throw new BrokerStartException("Could not restrict " + file + " to its owner: " + e.getMessage(), e);
        }
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new BrokerStartException("Could not read " + file + ": " + e.getMessage(), e);
        }
    }

    private static void writeAtomically(Path file, String content) {
        try {
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new BrokerStartException("Could not write " + file + ": " + e.getMessage(), e);
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress(HOST, new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Ports(int broker, int controller) {
    }
}
