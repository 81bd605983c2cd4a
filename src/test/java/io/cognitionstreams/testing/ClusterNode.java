package io.cognitionstreams.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.apache.kafka.common.utils.Time;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;

/**
 * One node of a {@link BrokerCluster}: a combined KRaft broker and controller from Kafka's own jars, alone in its
 * JVM so that it can be killed for real (SIGKILL: no controlled shutdown, no flush, its sockets reset by the
 * kernel), which no stop inside a shared JVM imitates.
 *
 * <p>{@code java -cp ... ClusterNode <node id> <data dir> <port> <controller port> <voters> <cluster id>}: formats
 * the data directory the first time, then runs until killed.
 */
public final class ClusterNode {

    /** Replicas of every topic, internal ones included: one per node. */
    static final int REPLICATION_FACTOR = 3;
    /** Acknowledged writes survive the loss of one node, and writes go on with one node down. */
    static final int MIN_IN_SYNC_REPLICAS = 2;

    private ClusterNode() {
    }

    public static void main(String[] args) throws Exception {
        int nodeId = Integer.parseInt(args[0]);
        Path dataDir = Path.of(args[1]);
        Properties props = properties(nodeId, dataDir.resolve("kafka-logs"), Integer.parseInt(args[2]),
                Integer.parseInt(args[3]), args[4]);
        Files.createDirectories(dataDir);
        Path file = dataDir.resolve("server.properties");
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            props.store(writer, "node " + nodeId);
        }
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int rc = StorageTool.execute(new String[] {"format", "-t", args[5], "-c", file.toString(),
            "--ignore-formatted"}, new PrintStream(output, true, StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException("format failed (exit " + rc + "): " + output);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        server.awaitShutdown();
    }

    static Properties properties(int nodeId, Path logDir, int port, int controllerPort, String voters) {
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", String.valueOf(nodeId));
        // Static voters: three controllers, so the quorum (two of three) survives the loss of any one node.
        props.put("controller.quorum.voters", voters);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", logDir.toString());
        String rf = String.valueOf(REPLICATION_FACTOR);
        String minIsr = String.valueOf(MIN_IN_SYNC_REPLICAS);
        props.put("default.replication.factor", rf);
        props.put("min.insync.replicas", minIsr);
        // Kafka's default, stated: a replica that was not in sync never becomes leader, so no acknowledged write
        // is lost to an election; a partition whose in-sync replicas are all gone waits instead.
        props.put("unclean.leader.election.enable", "false");
        props.put("offsets.topic.replication.factor", rf);
        props.put("transaction.state.log.replication.factor", rf);
        props.put("transaction.state.log.min.isr", minIsr);
        props.put("share.coordinator.state.topic.replication.factor", rf);
        props.put("share.coordinator.state.topic.min.isr", minIsr);
        // Three partitions each instead of fifty: every node coordinates some groups and transactions, so a kill
        // moves coordinators too, and the first group join and transaction do not wait for 150 replicas.
        props.put("offsets.topic.num.partitions", "3");
        props.put("transaction.state.log.num.partitions", "3");
        props.put("share.coordinator.state.topic.num.partitions", "3");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("group.streams.initial.rebalance.delay.ms", "0");
        // A dead node keeps leading its partitions until the active controller fences it, one broker session
        // after its last heartbeat: that session is most of the time from a kill to answers again. 3 s (heartbeat
        // 0.5 s) instead of 9 s; a node that stalls for 3 s is fenced and its partitions move, a pause, not a loss.
        props.put("broker.session.timeout.ms", "3000");
        props.put("broker.heartbeat.interval.ms", "500");
        // When the dead node was the active controller, the others first notice it after this long without an
        // answer to their fetches, then elect a new one, which starts the dead broker's session afresh. 1 s
        // instead of 2 s; pre-vote (KIP-996) keeps a late fetch from deposing a live controller.
        props.put("controller.quorum.fetch.timeout.ms", "1000");
        props.put("log.cleaner.dedupe.buffer.size", "2097152");
        return props;
    }
}
