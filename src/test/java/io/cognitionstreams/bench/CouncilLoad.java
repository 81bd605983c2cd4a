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
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.cognitionstreams.cli.CognitionCli;
import io.cognitionstreams.gatekeeper.Proposals;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
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
 * a running council adds. It prints the figures, the latency by when the call was sent (5 s at a time), and for a
 * gated call the time of each step as this client sees it on council.messages, council.decisions and tool.decisions.
 *
 * <pre>bin/test-main io.cognitionstreams.bench.CouncilLoad RATE SECONDS [risky|never] [WARMUP]</pre>
 */
public final class CouncilLoad {

    private static final int SESSIONS = 64;
    private static final String[] STEPS = {"gatekeeper: call sent -> PENDING seen", "PENDING -> proposal seen",
        "role workers: proposal -> 2nd vote seen", "council: 2nd vote -> its decision seen",
        "gatekeeper: council's decision -> final decision seen"};

    private CouncilLoad() {
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } finally {
            System.exit(0); // the app's threads (broker, streams) are not daemons
        }
    }

    /**
     * The calls of one phase: when each was sent and each of its steps seen (nanoTime; 0 not yet), keyed by call id,
     * and the latencies of those decided, with when they were sent (from the phase's start).
     */
    private static final class Tally {
        final Map<String, long[]> open = new HashMap<>();
        final Map<String, String> callOfProposal = new HashMap<>();
        final Map<String, Integer> votes = new HashMap<>();
        final List<long[]> decided = new ArrayList<>();
        long start = System.nanoTime();

        void sent(String callId, String session) {
            long[] times = new long[STEPS.length + 1];
            times[0] = System.nanoTime();
            open.put(callId, times);
            callOfProposal.put(Proposals.id(session, callId), callId);
        }

        /** Step {@code step} of the call of {@code proposalId} seen now, unless seen before. */
        void seen(String proposalId, int step) {
            String call = callOfProposal.get(proposalId);
            long[] times = call == null ? null : open.get(call);
            if (times != null && times[step] == 0) {
                times[step] = System.nanoTime();
            }
        }

        void pending(String callId) {
            long[] times = open.get(callId);
            if (times != null && times[1] == 0) {
                times[1] = System.nanoTime();
            }
        }

        void vote(String proposalId) {
            if (votes.merge(proposalId, 1, Integer::sum) == 2) {
                seen(proposalId, 3);
            }
        }

        void decided(String callId) {
            long[] times = open.remove(callId);
            if (times != null) {
                long[] done = new long[times.length + 1];
                System.arraycopy(times, 0, done, 0, times.length);
                done[STEPS.length] = System.nanoTime();
                done[STEPS.length + 1] = times[0] - start;
                decided.add(done);
            }
        }

        long[] latencies() {
            return decided.stream().mapToLong(times -> (times[STEPS.length] - times[0]) / 1_000_000L).sorted()
                    .toArray();
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
            Tally first = new Tally();
            send(producer, topics, "warm-up", "warm-up-s", first);
            drain(consumer, topics, first, Duration.ofMinutes(3));
            Tally warming = new Tally();
            offer(producer, consumer, topics, "warm-", rate, warmup, warming);
            drain(consumer, topics, warming, Duration.ofMinutes(3));
            System.err.printf("app up (approval %s); warmed up with %d calls in %d s; %d gated calls/s for %s%n",
                    approval, warming.decided.size(), (System.nanoTime() - warming.start) / 1_000_000_000L, rate,
                    duration);
            Tally measured = new Tally();
            long sent = offer(producer, consumer, topics, "load-", rate, duration, measured);
            drain(consumer, topics, measured, Duration.ofSeconds(60));
            long[] sorted = measured.latencies();
            System.out.printf("approval %s, offered %d gated calls/s for %d s: %d sent, %d decided%n", approval, rate,
                    duration.toSeconds(), sent, sorted.length);
            if (sorted.length > 0) {
                System.out.printf("call sent -> final decision seen, ms: p50 %d, p90 %d, p99 %d, max %d%n",
                        ExecutorLoad.at(sorted, 0.50), ExecutorLoad.at(sorted, 0.90), ExecutorLoad.at(sorted, 0.99),
                        sorted[sorted.length - 1]);
                printTimeline(measured);
                printSteps(measured);
            }
        }
    }

    /** Sends {@code rate} calls a second named {@code prefix<n>} for {@code duration}, collecting decisions. */
    private static long offer(KafkaProducer<String, byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
                              Topics topics, String prefix, int rate, Duration duration, Tally tally) {
        long sent = 0;
        tally.start = System.nanoTime();
        long end = tally.start + duration.toNanos();
        while (System.nanoTime() < end) {
            long due = (System.nanoTime() - tally.start) * rate / 1_000_000_000L;
            while (sent < due) {
                send(producer, topics, prefix + sent, "load-s" + (sent % SESSIONS), tally);
                sent++;
            }
            collect(consumer, topics, tally);
        }
        return sent;
    }

    /** p50 and max latency by when the call was sent, 5 s at a time: a backlog grows, a stall is a bump. */
    private static void printTimeline(Tally tally) {
        Map<Long, List<Long>> byWindow = new TreeMap<>();
        tally.decided.forEach(times -> byWindow.computeIfAbsent(times[STEPS.length + 1] / 5_000_000_000L,
                window -> new ArrayList<>()).add((times[STEPS.length] - times[0]) / 1_000_000L));
        byWindow.forEach((window, values) -> {
            long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf("  sent %3d-%3d s: %4d calls, p50 %d ms, max %d ms%n", window * 5, window * 5 + 5,
                    sorted.length, ExecutorLoad.at(sorted, 0.50), sorted[sorted.length - 1]);
        });
    }

    /** Each step of the gated calls whose every step was seen; nothing for --approval never. */
    private static void printSteps(Tally tally) {
        List<long[]> complete = tally.decided.stream()
                .filter(times -> java.util.Arrays.stream(times, 1, STEPS.length).allMatch(at -> at > 0)).toList();
        if (complete.isEmpty()) {
            return;
        }
        System.out.printf("steps of %d gated calls as this client sees them, ms (p50 / p99):%n", complete.size());
        for (int step = 1; step <= STEPS.length; step++) {
            int to = step;
            long[] sorted = complete.stream().mapToLong(times -> (times[to] - times[to - 1]) / 1_000_000L).sorted()
                    .toArray();
            System.out.printf("  %-55s %5d / %5d%n", STEPS[step - 1], ExecutorLoad.at(sorted, 0.50),
                    ExecutorLoad.at(sorted, 0.99));
        }
    }

    private static void send(KafkaProducer<String, byte[]> producer, Topics topics, String callId, String session,
                             Tally tally) {
        ToolCall call = ToolCall.newBuilder().setCallId(callId).setSessionId(session).setCaller("shell-operator")
                .setSkill("shell-operator").setTool("shell.run").setArguments("{\"command\":\"du -sh /var/log\"}")
                .setTimestamp(Instant.now()).build();
        tally.sent(callId, session);
        producer.send(new ProducerRecord<>(topics.toolCalls.name(), session,
                topics.toolCalls.valueSerde().serializer().serialize(topics.toolCalls.name(), call)));
    }

    private static void collect(KafkaConsumer<byte[], byte[]> consumer, Topics topics, Tally tally) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(5))) {
            if (record.topic().equals(topics.councilMessages.name())) {
                CouncilMessage message = topics.councilMessages.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value());
                if (message.getType() == CouncilMessageType.PROPOSAL) {
                    tally.seen(message.getMsgId(), 2);
                } else if (message.getType() == CouncilMessageType.VOTE) {
                    tally.vote(message.getProposalId());
                }
                continue;
            }
            if (record.topic().equals(topics.councilDecisions.name())) {
                CouncilDecision decision = topics.councilDecisions.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value());
                tally.seen(decision.getProposalId(), 4);
                continue;
            }
            ToolDecision decision = topics.toolDecisions.valueSerde().deserializer()
                    .deserialize(record.topic(), record.value());
            if (decision.getVerdict() == Verdict.PENDING) {
                tally.pending(decision.getCall().getCallId());
            } else {
                tally.decided(decision.getCall().getCallId());
            }
        }
    }

    private static void drain(KafkaConsumer<byte[], byte[]> consumer, Topics topics, Tally tally, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!tally.open.isEmpty() && System.nanoTime() < deadline) {
            collect(consumer, topics, tally);
        }
    }

    /** From the end of tool.decisions, council.messages and council.decisions, once the app has created them. */
    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, Topics topics)
            throws InterruptedException {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // the app creates them, with their partitions
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (true) {
            try {
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                        new ByteArrayDeserializer());
                List<TopicPartition> partitions = new ArrayList<>();
                for (String topic : List.of(topics.toolDecisions.name(), topics.councilMessages.name(),
                        topics.councilDecisions.name())) {
                    List<TopicPartition> ofTopic = new ArrayList<>();
                    consumer.partitionsFor(topic).forEach(info -> ofTopic.add(
                            new TopicPartition(info.topic(), info.partition())));
                    if (ofTopic.isEmpty()) {
                        consumer.close();
                        throw new IllegalStateException(topic + " does not exist yet");
                    }
                    partitions.addAll(ofTopic);
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
