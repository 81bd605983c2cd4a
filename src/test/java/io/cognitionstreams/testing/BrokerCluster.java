package io.cognitionstreams.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * A KRaft cluster of {@link ClusterNode}s, each a combined broker and controller in a child JVM started from this
 * JVM's classpath, so one can be killed with SIGKILL and started again on its data. Every topic has one replica
 * per node and needs two in sync ({@link ClusterNode}).
 *
 * <p>With three nodes the controller quorum and every partition's in-sync replicas survive the loss of one node,
 * not of two: a second node may be killed once the first is back and in sync ({@link #awaitInSync}).
 */
public final class BrokerCluster implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(100);

    private final Path dir;
    private final String clusterId = Uuid.randomUuid().toString();
    private final Map<Integer, int[]> ports = new TreeMap<>();
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final String voters;
    private final String bootstrap;
    private final Admin admin;

    private BrokerCluster(Path dir, int nodes) throws IOException {
        this.dir = dir;
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int id = 1; id <= nodes; id++) {
                ports.put(id, new int[] {hold(held), hold(held)});
            }
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
        voters = ports.entrySet().stream().map(e -> e.getKey() + "@127.0.0.1:" + e.getValue()[1])
                .collect(Collectors.joining(","));
        bootstrap = ports.values().stream().map(p -> "127.0.0.1:" + p[0]).collect(Collectors.joining(","));
        admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** Starts {@code nodes} nodes under {@code dir} and returns once every one is a registered, unfenced broker. */
    public static BrokerCluster start(Path dir, int nodes, Duration timeout) throws Exception {
        BrokerCluster cluster = new BrokerCluster(dir, nodes);
        try {
            cluster.ports.keySet().forEach(cluster::launch);
            cluster.awaitBrokers(cluster.ports.keySet(), timeout);
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** Every node's listener, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrap;
    }

    /** SIGKILL: the node's process ends at once, its connections reset; waits until it is gone. */
    public void kill(int node) throws InterruptedException {
        Process process = processes.remove(node);
        process.destroyForcibly();
        process.waitFor();
    }

    /** Starts a killed node again on its data and ports; returns once it is an unfenced broker again. */
    public void restart(int node, Duration timeout) throws Exception {
        launch(node);
        awaitBrokers(Set.of(node), timeout);
    }

    /** Waits until every partition of every topic, internal ones included, has all its replicas in sync. */
    public void awaitInSync(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> behind = List.of();
        while (System.nanoTime() < deadline) {
            behind = describe(admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                    .get(30, TimeUnit.SECONDS)).entrySet().stream()
                    .flatMap(e -> e.getValue().stream().filter(p -> p.isr().size() < p.replicas().size())
                            .map(p -> e.getKey() + "-" + p.partition()))
                    .toList();
            if (behind.isEmpty()) {
                return;
            }
            Thread.sleep(POLL.toMillis());
        }
        throw new AssertionError("partitions still short of in-sync replicas after " + timeout + ": " + behind);
    }

    /** How many partitions of {@code topics} each node leads now. */
    public Map<Integer, Integer> leaderships(Collection<String> topics) throws Exception {
        Map<Integer, Integer> led = new TreeMap<>();
        processes.keySet().forEach(node -> led.put(node, 0));
        describe(topics).values().stream().flatMap(List::stream)
                .filter(p -> p.leader() != null && !p.leader().isEmpty())
                .forEach(p -> led.merge(p.leader().id(), 1, Integer::sum));
        return led;
    }

    /** The partitions of {@code topic} that {@code node} leads now. */
    public Set<Integer> ledBy(int node, String topic) throws Exception {
        return describe(List.of(topic)).get(topic).stream()
                .filter(p -> p.leader() != null && p.leader().id() == node)
                .map(TopicPartitionInfo::partition).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The node whose controller is the quorum's leader, the active controller. */
    public int activeController() throws Exception {
        return admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId();
    }

    /** The nodes running now. */
    public Set<Integer> running() {
        return new TreeSet<>(processes.keySet());
    }

    /** Kills every node: their data is scratch, and a graceful stop of the last nodes waits on a lost quorum. */
    @Override
    public void close() {
        admin.close(Duration.ofSeconds(1));
        for (int node : new ArrayList<>(processes.keySet())) {
            try {
                kill(node);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private Map<String, List<TopicPartitionInfo>> describe(Collection<String> topics)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                .get(30, TimeUnit.SECONDS);
        return described.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                e -> e.getValue().partitions()));
    }

    private void awaitBrokers(Set<Integer> nodes, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            for (int node : nodes) {
                if (!processes.get(node).isAlive()) {
                    throw new IllegalStateException("node " + node + " exited with " + processes.get(node)
                            .exitValue() + "; see " + log(node));
                }
            }
            try {
                Set<Integer> up = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
                        .map(Node::id).collect(Collectors.toSet());
                if (up.containsAll(nodes)) {
                    return;
                }
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                last = e;
            }
            Thread.sleep(POLL.toMillis());
        }
        throw new IllegalStateException("nodes " + nodes + " not up within " + timeout + "; see " + dir, last);
    }

    private void launch(int node) {
        int[] nodePorts = ports.get(node);
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), ClusterNode.class.getName(),
                String.valueOf(node), dir.resolve("node-" + node).toString(), String.valueOf(nodePorts[0]),
                String.valueOf(nodePorts[1]), voters, clusterId);
        try {
            Files.createDirectories(dir);
            processes.put(node, new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log(node).toFile())).start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + node, e);
        }
    }

    private Path log(int node) {
        return dir.resolve("node-" + node + ".log");
    }

    private static int hold(List<ServerSocket> held) throws IOException {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}));
        held.add(socket);
        return socket.getLocalPort();
    }
}
