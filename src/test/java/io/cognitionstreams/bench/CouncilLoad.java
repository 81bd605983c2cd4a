package io.cognitionstreams.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.cognitionstreams.cli.CognitionCli;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.topics.Topics;

/**
 * What the council adds to a gated call, end to end on the embedded broker: {@code cognition run} with two role
 * workers on the replay model (voters that answer at once), and {@code shell.run} calls of the shipped
 * shell-operator skill produced onto tool.calls at a fixed rate. Latency is from the call's send to its final
 * decision seen on tool.decisions (read_committed); the same run with {@code --approval never} is the gatekeeper
 * alone, so the difference is the council's part: the PENDING decision and proposal, the role workers' votes, the
 * council's decision and the gatekeeper's second decision.
 *
 * <p>Before the measured seconds it offers the same rate for WARMUP seconds (default 15) and waits until they are all
 * decided: a cold JVM on two cores takes its first seconds of load many times slower (JIT, caches), which is not what
 * a running council adds. It prints the figures and the latency by when the call was sent, 5 s at a time.
 *
 * <pre>bin/test-main io.cognitionstreams.bench.CouncilLoad RATE SECONDS [risky|never] [WARMUP]</pre>
 */
public final class CouncilLoad {

    private static final int SESSIONS = 64;

    private CouncilLoad() {
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } finally {
            System.exit(0); // the app's threads (broker, streams) are not daemons
        }
    }

    private static void run(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        Duration duration = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 30);
        String approval = args.length > 2 ? args[2] : "risky";
        Duration warmup = Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 15);
        Path dir = Files.createTempDirectory("council-load");
        int port = ExecutorLoad.freePort();
        int controllerPort = ExecutorLoad.freePort();
        Thread app = new Thread(() -> CognitionCli.commandLine().execute("run", "--data-dir", dir.toString(),
                "--port", String.valueOf(port), "--controller-port", String.valueOf(controllerPort),
                "--approval", approval, "--council-role", "prime=replay", "--council-role", "lite=replay"), "app");
        app.setDaemon(true);
        app.start();
        String bootstrap = "127.0.0.1:" + port;
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, topics);
             KafkaProducer<String, byte[]> producer = ExecutorLoad.producer(bootstrap)) {
            // Warm up: one call decided end to end, then the rate for a while, so the figures leave out the start.
            Map<String, Long> sentAt = new HashMap<>();
            send(producer, topics, "warm-up", "warm-up-s", sentAt);
            drain(consumer, topics, sentAt, new ArrayList<>(), Map.of(), new ArrayList<>(), Duration.ofMinutes(3));
            long warming = System.nanoTime();
            long warmed = offer(producer, consumer, topics, "warm-", rate, warmup, sentAt, new ArrayList<>(),
                    new HashMap<>(), new ArrayList<>());
            drain(consumer, topics, sentAt, new ArrayList<>(), Map.of(), new ArrayList<>(), Duration.ofMinutes(3));
            System.err.printf("app up (approval %s); warmed up with %d calls in %d s; %d gated calls/s for %s%n",
                    approval, warmed, (System.nanoTime() - warming) / 1_000_000_000L, rate, duration);
            List<Long> latencies = new ArrayList<>();
            Map<String, Long> sentNanos = new HashMap<>();
            List<long[]> timeline = new ArrayList<>();
            long sent = offer(producer, consumer, topics, "load-", rate, duration, sentAt, latencies, sentNanos,
                    timeline);
            drain(consumer, topics, sentAt, latencies, sentNanos, timeline, Duration.ofSeconds(60));
            long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf("approval %s, offered %d gated calls/s for %d s: %d sent, %d decided%n", approval, rate,
                    duration.toSeconds(), sent, sorted.length);
            if (sorted.length > 0) {
                System.out.printf("call sent -> final decision seen, ms: p50 %d, p90 %d, p99 %d, max %d%n",
                        ExecutorLoad.at(sorted, 0.50), ExecutorLoad.at(sorted, 0.90), ExecutorLoad.at(sorted, 0.99),
                        sorted[sorted.length - 1]);
                printTimeline(timeline);
            }
        }
    }

    private static void send(KafkaProducer<String, byte[]> producer, Topics topics, String callId, String session,
                             Map<String, Long> sentAt) {
        ToolCall call = ToolCall.newBuilder().setCallId(callId).setSessionId(session).setCaller("shell-operator")
                .setSkill("shell-operator").setTool("shell.run").setArguments("{\"command\":\"du -sh /var/log\"}")
                .setTimestamp(Instant.now()).build();
        sentAt.put(callId, System.nanoTime());
        producer.send(new ProducerRecord<>(topics.toolCalls.name(), session,
                topics.toolCalls.valueSerde().serializer().serialize(topics.toolCalls.name(), call)));
    }

    /** Sends {@code rate} calls a second named {@code prefix<n>} for {@code duration}, collecting decisions. */
    private static long offer(KafkaProducer<String, byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
                              Topics topics, String prefix, int rate, Duration duration, Map<String, Long> sentAt,
                              List<Long> latencies, Map<String, Long> sentNanos, List<long[]> timeline) {
        long sent = 0;
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        while (System.nanoTime() < end) {
            long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
            while (sent < due) {
                send(producer, topics, prefix + sent, "load-s" + (sent % SESSIONS), sentAt);
                sentNanos.put(prefix + sent, sentAt.get(prefix + sent) - start);
                sent++;
            }
            collect(consumer, topics, sentAt, latencies, sentNanos, timeline);
        }
        return sent;
    }

    /** p50 and max latency by when the call was sent, 5 s at a time: a backlog grows, a stall is a bump. */
    private static void printTimeline(List<long[]> timeline) {
        Map<Long, List<Long>> byWindow = new java.util.TreeMap<>();
        timeline.forEach(sentAndLatency -> byWindow.computeIfAbsent(sentAndLatency[0] / 5_000_000_000L,
                window -> new ArrayList<>()).add(sentAndLatency[1]));
        byWindow.forEach((window, values) -> {
            long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf("  sent %3d-%3d s: %4d calls, p50 %d ms, max %d ms%n", window * 5, window * 5 + 5,
                    sorted.length, ExecutorLoad.at(sorted, 0.50), sorted[sorted.length - 1]);
        });
    }

    private static void collect(KafkaConsumer<byte[], byte[]> consumer, Topics topics, Map<String, Long> sentAt,
                                List<Long> latencies, Map<String, Long> sentNanos, List<long[]> timeline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(5))) {
            long seen = System.nanoTime();
            ToolDecision decision = topics.toolDecisions.valueSerde().deserializer()
                    .deserialize(record.topic(), record.value());
            if (decision.getVerdict() == Verdict.PENDING) {
                continue;
            }
            Long sent = sentAt.remove(decision.getCall().getCallId());
            if (sent != null && decision.getCall().getCallId().startsWith("load-")) {
                latencies.add((seen - sent) / 1_000_000L);
                Long offset = sentNanos.get(decision.getCall().getCallId());
                if (offset != null) {
                    timeline.add(new long[] {offset, (seen - sent) / 1_000_000L});
                }
            }
        }
    }

    private static void drain(KafkaConsumer<byte[], byte[]> consumer, Topics topics, Map<String, Long> sentAt,
                              List<Long> latencies, Map<String, Long> sentNanos, List<long[]> timeline,
                              Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!sentAt.isEmpty() && System.nanoTime() < deadline) {
            collect(consumer, topics, sentAt, latencies, sentNanos, timeline);
        }
    }

    /** From the end of tool.decisions, once the app has created it. */
    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, Topics topics)
            throws InterruptedException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // the app creates it, with its partitions
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (true) {
            try {
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                        new ByteArrayDeserializer());
                List<TopicPartition> partitions = new ArrayList<>();
                consumer.partitionsFor(topics.toolDecisions.name()).forEach(info -> partitions.add(
                        new TopicPartition(info.topic(), info.partition())));
                if (partitions.isEmpty()) {
                    consumer.close();
                    throw new IllegalStateException(topics.toolDecisions.name() + " does not exist yet");
                }
                consumer.assign(partitions);
                consumer.seekToEnd(partitions);
                partitions.forEach(consumer::position);
                return consumer;
            } catch (RuntimeException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(1000);
            }
        }
    }
}
