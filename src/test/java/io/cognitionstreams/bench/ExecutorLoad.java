package io.cognitionstreams.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.cli.CognitionCli;
import io.cognitionstreams.executor.McpServerConfig;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.topics.Topics;

/**
 * The executor's overhead under load, end to end on the embedded broker: {@code cognition run} with the demo's
 * workspace MCP server, tool calls of the shipped inspector skill ({@code mcp__workspace__clock}, a no-op that
 * answers the time) produced onto tool.calls at a fixed rate, and one read_committed consumer that sees each call's
 * approval on tool.decisions, its outcome on tool.outcomes and its result on tool.results. Overhead is the time between the two minus the tool's
 * own run time ({@code duration_ms}): the executor's poll, its transaction and the gatekeeper's hop from
 * tool.outcomes to tool.results. Not a JMH benchmark: the unit of work is a Kafka round trip.
 *
 * <pre>bin/test-main io.cognitionstreams.bench.ExecutorLoad RATE SECONDS</pre>
 */
public final class ExecutorLoad {

    private static final String TOOL = "mcp__workspace__clock";
    private static final int SESSIONS = 64;

    private ExecutorLoad() {
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } finally {
            System.exit(0); // the app's threads (broker, streams) are not daemons
        }
    }

    private static void run(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        if (rate < 1) {
            throw new IllegalArgumentException("RATE is calls per second, at least 1");
        }
        Duration duration = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 30);
        Path dir = Files.createTempDirectory("executor-load");
        int port = freePort();
        int controllerPort = freePort();
        Path mcpConfig = dir.resolve("mcp.json");
        McpServerConfig workspace = WorkspaceServer.demoConfig(Path.of("."));
        Files.writeString(mcpConfig, new ObjectMapper().writeValueAsString(Map.of("mcpServers", Map.of(
                workspace.name(), Map.of("command", workspace.command().get(0), "args",
                        workspace.command().subList(1, workspace.command().size()))))));
        Thread app = new Thread(() -> CognitionCli.commandLine().execute("run", "--data-dir", dir.toString(),
                "--port", String.valueOf(port), "--controller-port", String.valueOf(controllerPort),
                "--mcp-config", mcpConfig.toString()), "app");
        app.setDaemon(true);
        app.start();
        String bootstrap = "127.0.0.1:" + port;
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        awaitTool(bootstrap, topics);
        System.err.printf("app up; %d calls/s for %s%n", rate, duration);

        Map<String, Long> approvedAt = new HashMap<>();
        Map<String, Long> executedAt = new HashMap<>();
        List<Long> overheads = new ArrayList<>();
        List<Long> executorHops = new ArrayList<>();
        List<Long> toolMillis = new ArrayList<>();
        long sent = 0;
        long firstApproval = Long.MAX_VALUE;
        long lastResult = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap);
             KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            long drainUntil = end + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < drainUntil && (System.nanoTime() < end || overheads.size() < sent)) {
                long now = System.nanoTime();
                long due = (now - start) * rate / 1_000_000_000L;
                while (now < end && sent < due) {
                    String session = "load-s" + (sent % SESSIONS);
                    ToolCall call = ToolCall.newBuilder().setCallId("load-" + sent).setSessionId(session)
                            .setCaller("inspector").setSkill("inspector").setTool(TOOL).setArguments("{}")
                            .setTimestamp(Instant.now()).build();
                    producer.send(new ProducerRecord<>(topics.toolCalls.name(), session,
                            topics.toolCalls.valueSerde().serializer().serialize(topics.toolCalls.name(), call)));
                    sent++;
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(5))) {
                    long seen = System.nanoTime();
                    if (record.topic().equals(topics.toolDecisions.name())) {
                        ToolDecision decision = topics.toolDecisions.valueSerde().deserializer()
                                .deserialize(record.topic(), record.value());
                        if (decision.getVerdict() == Verdict.APPROVED) {
                            approvedAt.put(decision.getCall().getCallId(), seen);
                            firstApproval = Math.min(firstApproval, seen);
                        }
                    } else if (record.topic().equals(topics.toolOutcomes.name())) {
                        ToolResult outcome = topics.toolOutcomes.valueSerde().deserializer()
                                .deserialize(record.topic(), record.value());
                        executedAt.put(outcome.getCallId(), seen);
                    } else {
                        ToolResult result = topics.toolResults.valueSerde().deserializer()
                                .deserialize(record.topic(), record.value());
                        Long approved = approvedAt.remove(result.getCallId());
                        Long executed = executedAt.remove(result.getCallId());
                        if (approved != null && result.getCallId().startsWith("load-")) {
                            long tool = result.getDurationMs() == null ? 0 : result.getDurationMs();
                            overheads.add((seen - approved) / 1_000_000L - tool);
                            if (executed != null) {
                                executorHops.add((executed - approved) / 1_000_000L - tool);
                            }
                            toolMillis.add(tool);
                            lastResult = seen;
                        }
                    }
                }
            }
        }
        report(rate, duration, sent, overheads, toolMillis, (lastResult - firstApproval) / 1e9);
        long[] hops = executorHops.stream().mapToLong(Long::longValue).sorted().toArray();
        if (hops.length > 0) {
            System.out.printf("of which the executor (approval seen -> outcome seen, minus the tool), ms: p50 %d, "
                    + "p99 %d; the rest is the gatekeeper's hop from tool.outcomes to tool.results%n",
                    at(hops, 0.50), at(hops, 0.99));
        }
    }

    /** The app is up once the executor has published the tool; until its topics exist there is nothing to read. */
    private static void awaitTool(String bootstrap, Topics topics) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (true) {
            try {
                Kafka.readUntil(bootstrap, topics.tools, tool -> tool.getName().equals(TOOL),
                        seen -> !seen.isEmpty(), Duration.ofSeconds(20));
                return;
            } catch (RuntimeException | AssertionError notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(1000);
            }
        }
    }

    private static void report(int rate, Duration duration, long sent, List<Long> overheads, List<Long> toolMillis,
                               double seconds) {
        long[] sorted = overheads.stream().mapToLong(Long::longValue).sorted().toArray();
        long[] tools = toolMillis.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf("offered %d calls/s for %d s: %d sent, %d results%n", rate,
                duration.toSeconds(), sent, sorted.length);
        if (sorted.length == 0) {
            return;
        }
        System.out.printf("throughput: %.0f results/s (first approval to last result)%n", sorted.length / seconds);
        System.out.printf("overhead (approval seen -> result seen, minus the tool's own time), ms: p50 %d, p90 %d, "
                + "p99 %d, max %d%n", at(sorted, 0.50), at(sorted, 0.90), at(sorted, 0.99),
                sorted[sorted.length - 1]);
        System.out.printf("tool's own time, ms: p50 %d, p99 %d%n", at(tools, 0.50), at(tools, 0.99));
    }

    static long at(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : Arrays.asList(Topics.TOOL_DECISIONS, Topics.TOOL_OUTCOMES, Topics.TOOL_RESULTS)) {
            consumer.partitionsFor(topic).forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        return consumer;
    }

    static KafkaProducer<String, byte[]> producer(String bootstrap) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        return new KafkaProducer<>(config, new StringSerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer());
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
