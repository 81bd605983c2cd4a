package io.cognitionstreams.load;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Offers load at a fixed rate and times each request until its answer is readable (read_committed), one step at
 * a time: the step's records are sent on their schedule by one thread while this one polls for answers, and a
 * step ends when every answer arrived (or the drain timeout passed), so no backlog spills into the next step.
 */
public final class EndToEndBench {

    private static final int BAR_WIDTH = 24;

    private final Map<String, Object> sender;
    private final Map<String, Object> reader;
    private final PrintWriter progress;
    private final Duration drainTimeout;

    /**
     * @param client   the cluster and any client settings of the operator's, for the bench's own clients
     * @param progress where the carriage-return progress line goes (stderr)
     */
    public EndToEndBench(Map<String, Object> client, PrintWriter progress, Duration drainTimeout) {
        this(client, client, progress, drainTimeout);
    }

    /**
     * @param sender the producer's client settings, e.g. logged in as an agent on a secured cluster
     * @param reader the answer consumer's, e.g. logged in as a principal that may read the answers
     */
    public EndToEndBench(Map<String, Object> sender, Map<String, Object> reader, PrintWriter progress,
                         Duration drainTimeout) {
        this.sender = Map.copyOf(sender);
        this.reader = Map.copyOf(reader);
        this.progress = progress;
        this.drainTimeout = drainTimeout;
    }

    /**
     * One offered load's outcome; {@code perSecond} is answers over the time from first send to last answer.
     *
     * @param doubled    answers that came again for a request already answered, each as the answer's id and where
     *                   it was read both times ({@code id: topic-partition@offset, then ...}): the same offset twice
     *                   is the reader's doing, two offsets a write that happened twice
     * @param outOfOrder answers that came before the answer to an earlier request of their session
     * @param peakHeap   the most heap in use the bench saw during the step, in bytes (sampled as answers arrive)
     * @param cpuPerRequest CPU time this whole JVM used from the step's first send to its last answer (or to the
     *                   end of the wait for the answers that never came), per answer, in milliseconds (broker, app
     *                   and bench when the broker is embedded); NaN where the JVM does not tell
     * @param jitPerRequest the part of {@code cpuPerRequest} the JIT's compiler threads used: a JVM still warming up
     *                   ({@link ProcessCpu#compilers}); NaN where /proc does not tell
     * @param kafkaPerAnswer what this JVM's producers other than the bench's sender sent over the same time, by
     *                   topic, and the requests a broker in this JVM handled, by type, per answer
     *                   ({@link KafkaTraffic})
     */
    public record Step(int offeredRate, int sent, int answered, double perSecond, Latencies.Summary latency,
                       List<String> doubled, int outOfOrder, long peakHeap, double cpuPerRequest,
                       double jitPerRequest, KafkaTraffic.Traffic kafkaPerAnswer) {
    }

    /** What a step sends. */
    @FunctionalInterface
    public interface Source {
        /** Record {@code n} of run {@code run} and the id its answer will carry. */
        Sent next(String run, long n, long nowMillis);
    }

    /** What a step sends, where its answers appear, and how an answer names the record it answers. */
    public interface Probe extends Source {
        String name();

        String answerTopic();

        /** The request an answer record answers, and the record's own id; null for records of other kinds. */
        Answer answer(ConsumerRecord<byte[], byte[]> record);
    }

    /**
     * @param requestId the request answered
     * @param id        the answer record's own id: the same id twice is an answer written twice (a request may
     *                  have several answer records, e.g. several blocks of one output on the channel)
     */
    public record Answer(String requestId, String id) {
    }

    /** @param session the session whose answers must come in order, null when order does not matter */
    public record Sent(String id, String session, ProducerRecord<byte[], byte[]> record) {
    }

    /**
     * The whole pipeline: a request on cognition.requests, answered by its first block on channel.cli_chat.
     *
     * @param turns requests per session
     */
    public static Probe pipeline(Topics topics, Workload workload, int turns) {
        Topic<String, CognitionRequest> requests = topics.requests;
        Topic<String, RoutedBlock> answers = topics.channel(Channel.CLI_CHAT);
        return new Probe() {
            @Override
            public String name() {
                return "pipeline";
            }

            @Override
            public String answerTopic() {
                return answers.name();
            }

            @Override
            public Sent next(String run, long n, long nowMillis) {
                CognitionRequest request = workload.request(run, n, Instant.ofEpochMilli(nowMillis), turns);
                return new Sent(request.getRequestId(), request.getSessionId(), new ProducerRecord<>(requests.name(),
                        utf8(request.getSessionId()), requests.valueSerde().serializer().serialize(requests.name(),
                        request)));
            }

            @Override
            public Answer answer(ConsumerRecord<byte[], byte[]> record) {
                RoutedBlock block = answers.valueSerde().deserializer().deserialize(record.topic(), record.value());
                return new Answer(block.getRequestId(), block.getBlockId());
            }
        };
    }

    /** Kafka alone: the same bytes produced to a scratch topic and read back, the floor under any pipeline. */
    public static Probe passThrough(String topic, byte[] value) {
        return new Probe() {
            @Override
            public String name() {
                return "pass-through";
            }

            @Override
            public String answerTopic() {
                return topic;
            }

            @Override
            public Sent next(String run, long n, long nowMillis) {
                String id = Workload.requestId(run, n);
                return new Sent(id, null, new ProducerRecord<>(topic, null, nowMillis, utf8(id), value));
            }

            @Override
            public Answer answer(ConsumerRecord<byte[], byte[]> record) {
                String id = new String(record.key(), StandardCharsets.UTF_8);
                return new Answer(id, id);
            }
        };
    }

    public Step run(Probe probe, String run, int rate, int count) throws InterruptedException {
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, String> sessions = new ConcurrentHashMap<>();
        Latencies latencies = new Latencies();
        Set<String> answered = new HashSet<>();
        Map<String, String> answerIds = new HashMap<>();
        Map<String, Long> lastAnsweredTurn = new HashMap<>();
        List<String> doubled = new ArrayList<>();
        int outOfOrder = 0;
        long peakHeap = 0;
        Runtime heap = Runtime.getRuntime();
        AtomicInteger sent = new AtomicInteger();
        AtomicReference<Exception> sendFailure = new AtomicReference<>();
        long firstSend = System.currentTimeMillis();
        long lastAnswer = firstSend;
        OptionalLong cpuAtStart = ProcessCpu.nanos();
        Optional<ProcessCpu.Compilers> jitAtStart = ProcessCpu.compilers();
        KafkaTraffic.Snapshot trafficAtStart = KafkaTraffic.snapshot();
        OptionalLong cpuAtEnd;
        Optional<ProcessCpu.Compilers> jitAtEnd;
        try (KafkaConsumer<byte[], byte[]> consumer = consumerAtEnd(reader, List.of(probe.answerTopic()))) {
            Thread sender = sender(this.sender, probe, run, rate, count, sentAt, sessions, sent, sendFailure);
            long drainDeadline = Long.MAX_VALUE;
            long nextDraw = 0;
            while (answered.size() < count && System.nanoTime() < drainDeadline && sendFailure.get() == null) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                    long now = System.currentTimeMillis();
                    Answer answer = probe.answer(record);
                    Long sentMillis = answer == null ? null : sentAt.get(answer.requestId());
                    if (sentMillis == null) {
                        continue;
                    }
                    String readAt = record.topic() + "-" + record.partition() + "@" + record.offset();
                    // With its request: block ids derive from 8-hex packet ids, which two requests of a long run
                    // can share (docs/reliability.md), and that is no answer written twice.
                    String first = answerIds.putIfAbsent(answer.requestId() + " " + answer.id(), readAt);
                    if (first != null) {
                        doubled.add(answer.id() + ": " + first + ", then " + readAt);
                        continue;
                    }
                    String id = answer.requestId();
                    if (!answered.add(id)) {
                        continue; // another record of an answer already timed
                    }
                    latencies.add(now - sentMillis);
                    lastAnswer = now;
                    String session = sessions.get(id);
                    if (session != null) {
                        long turn = Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
                        Long before = lastAnsweredTurn.put(session, turn);
                        if (before != null && before > turn) {
                            outOfOrder++;
                        }
                    }
                }
                peakHeap = Math.max(peakHeap, heap.totalMemory() - heap.freeMemory());
                if (!sender.isAlive() && drainDeadline == Long.MAX_VALUE) {
                    drainDeadline = System.nanoTime() + drainTimeout.toNanos();
                }
                if (System.nanoTime() > nextDraw) {
                    draw(progress, probe.name(), rate, count, sent.get(), answered.size());
                    nextDraw = System.nanoTime() + 250_000_000L;
                }
            }
            // The loop ends with the poll that brought the last answer, or at the end of the wait for the rest.
            cpuAtEnd = ProcessCpu.nanos();
            jitAtEnd = ProcessCpu.compilers();
            sender.join();
        }
        // After the join: the sender's producer has closed, so what it sent is not counted as the pipeline's.
        KafkaTraffic.Traffic traffic = KafkaTraffic.snapshot().since(trafficAtStart);
        clearLine(progress);
        if (sendFailure.get() != null) {
            throw new IllegalStateException(probe.name() + " could not send at " + rate + "/s: "
                    + sendFailure.get().getMessage(), sendFailure.get());
        }
        double seconds = Math.max(1, lastAnswer - firstSend) / 1000.0;
        OptionalLong cpu = cpuAtStart.isPresent() && cpuAtEnd.isPresent()
                ? OptionalLong.of(cpuAtEnd.getAsLong() - cpuAtStart.getAsLong()) : OptionalLong.empty();
        OptionalLong jit = jitAtStart.isPresent() && jitAtEnd.isPresent()
                ? OptionalLong.of(jitAtEnd.get().nanosSince(jitAtStart.get())) : OptionalLong.empty();
        return new Step(rate, sent.get(), answered.size(), answered.size() / seconds, latencies.summary(),
                List.copyOf(doubled), outOfOrder, peakHeap, perAnswer(cpu, answered.size()),
                perAnswer(jit, answered.size()), traffic.per(answered.size()));
    }

    /** Milliseconds of CPU per answer; NaN where the CPU is not known or nothing was answered. */
    private static double perAnswer(OptionalLong nanos, int answers) {
        return nanos.isPresent() && answers > 0 ? nanos.getAsLong() / 1e6 / answers : Double.NaN;
    }

    /**
     * Sends {@code count} records of {@code source} at {@code rate} a second on a thread of its own, started: each
     * record's id goes into {@code sentAt} with its send time (and its session into {@code sessions}) before it is
     * sent; a failure to send ends the sending and lands in {@code failure}.
     */
    static Thread sender(Map<String, Object> client, Source source, String run, double rate, int count,
                         Map<String, Long> sentAt, Map<String, String> sessions, AtomicInteger sent,
                         AtomicReference<Exception> failure) {
        Thread thread = new Thread(() -> send(client, source, run, rate, count, sentAt, sessions, sent, failure),
                "bench-sender");
        thread.start();
        return thread;
    }

    private static void send(Map<String, Object> client, Source source, String run, double rate, int count,
                             Map<String, Long> sentAt, Map<String, String> sessions, AtomicInteger sent,
                             AtomicReference<Exception> failure) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(with(client, ProducerConfig.ACKS_CONFIG,
                "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            long start = System.nanoTime();
            for (long n = 0; n < count; n++) {
                long wait = start + (long) (n * 1e9 / rate) - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                long now = System.currentTimeMillis();
                Sent next = source.next(run, n, now);
                if (next.session() != null) {
                    sessions.put(next.id(), next.session());
                }
                sentAt.put(next.id(), now);
                producer.send(next.record(), (metadata, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    }
                });
                sent.incrementAndGet();
            }
            producer.flush();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    /** A read_committed consumer of every partition of {@code topics}, at their ends. */
    static KafkaConsumer<byte[], byte[]> consumerAtEnd(Map<String, Object> reader, List<String> topics) {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(with(reader,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = topics.stream().flatMap(topic -> consumer.partitionsFor(topic).stream()
                .map(info -> new TopicPartition(topic, info.partition()))).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        // seekToEnd is lazy: fix the positions before the first record is sent.
        partitions.forEach(consumer::position);
        return consumer;
    }

    /** The client settings with the bench's own two on top. */
    private static Map<String, Object> with(Map<String, Object> client, String key, Object value, String otherKey,
                                            Object otherValue) {
        Map<String, Object> config = new java.util.HashMap<>(client);
        config.put(key, value);
        config.put(otherKey, otherValue);
        return config;
    }

    /** The carriage-return progress line of a step. */
    static void draw(PrintWriter progress, String name, int rate, int count, int sent, int answered) {
        int filled = count == 0 ? BAR_WIDTH : (int) ((long) Math.min(answered, count) * BAR_WIDTH / count);
        progress.printf("\r%-12s %6d/s [%s%s] sent %d/%d, answered %d", name, rate, "#".repeat(filled),
                "-".repeat(BAR_WIDTH - filled), sent, count, answered);
        progress.flush();
    }

    static void clearLine(PrintWriter progress) {
        progress.print("\r" + " ".repeat(100) + "\r");
        progress.flush();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
