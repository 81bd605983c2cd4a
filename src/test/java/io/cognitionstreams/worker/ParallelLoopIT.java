package io.cognitionstreams.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.SharedBroker;

/**
 * The parallel loop on a real broker: many keys in flight at once, one record per key at a time, completions out of
 * order, a new owner that skips exactly what the last one committed above its stragglers, and a side effect that
 * never starts when the transaction of its mark fails.
 */
@ExtendWith(SharedBroker.class)
class ParallelLoopIT {

    private static final int KEYS = 40;
    private static final int PER_KEY = 10;

    @Test
    void processesKeysInParallelInOrderAndExactlyOnceAcrossOwners(EmbeddedKafkaBroker broker) throws Exception {
        Lab lab = Lab.of(broker, 3);
        List<Map.Entry<String, String>> input = new ArrayList<>();
        for (int n = 0; n < PER_KEY; n++) {
            for (int key = 0; key < KEYS; key++) {
                input.add(Map.entry("k" + key, "k" + key + ":" + n));
            }
        }
        lab.send(input);
        String bootstrap = lab.bootstrap();
        Map<String, Object> client = lab.client();
        String in = lab.in();
        String out = lab.out();
        String app = lab.app();
        ScheduledExecutorService clock = Executors.newScheduledThreadPool(2);
        Map<String, AtomicInteger> perKey = new ConcurrentHashMap<>();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<String> overlaps = new ArrayList<>();
        // The first owner never finishes the first record of keys k0..k4: its commits must skip over them.
        Predicate<String> stuck = value -> value.matches("k[0-4]:0");
        Handler first = new Handler(out, clock, perKey, running, mostAtOnce, overlaps, stuck);
        String group = app + "-loop";
        ParallelLoop.Limits limits = new ParallelLoop.Limits(16, 64, Duration.ofMillis(30), 3000);
        ParallelLoop loop = new ParallelLoop("it-loop", client, group, "a", in, limits, Duration.ofSeconds(10),
                first);
        Thread thread = new Thread(loop, "parallel-loop-it-a");
        thread.start();
        try {
            // Every key but the stuck ones is blocked behind its first record; the others finish all ten.
            List<String> seen = readUntil(bootstrap, out, all -> all.size() >= (KEYS - 5) * PER_KEY);
            assertThat(seen).noneMatch(value -> value.matches("k[0-4]:.*"));
        } finally {
            loop.close();
            thread.join(30_000);
        }
        assertThat(first.started).hasValueGreaterThanOrEqualTo((KEYS - 5) * PER_KEY + 5);
        try (Admin admin = Admin.create(client)) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertThat(committed.values()).as("the stuck records hold their partitions' offsets back, the done "
                    + "records above them are in the metadata").anyMatch(offset -> offset.metadata().startsWith("p1:"));
        }

        Handler second = new Handler(out, clock, perKey, running, mostAtOnce, overlaps, value -> false);
        ParallelLoop next = new ParallelLoop("it-loop", client, group, "b", in, limits, Duration.ofSeconds(10),
                second);
        Thread nextThread = new Thread(next, "parallel-loop-it-b");
        nextThread.start();
        try {
            readUntil(bootstrap, out, all -> all.size() >= KEYS * PER_KEY);
            // Let anything doubled arrive before counting.
            Thread.sleep(500);
        } finally {
            next.close();
            nextThread.join(30_000);
            clock.shutdownNow();
        }
        assertThat(second.started).as("only the stuck keys' records are done again").hasValue(5 * PER_KEY);

        List<String> outputs = Kafka.readRaw(bootstrap, out).stream().map(record -> new String(record.value(),
                StandardCharsets.UTF_8)).toList();
        assertThat(outputs).hasSize(KEYS * PER_KEY).doesNotHaveDuplicates();
        Map<String, List<Integer>> order = new LinkedHashMap<>();
        for (String value : outputs) {
            String[] parts = value.split(":");
            order.computeIfAbsent(parts[0], key -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
        }
        assertThat(order).hasSize(KEYS).allSatisfy((key, numbers) ->
                assertThat(numbers).as(key).isSorted());
        assertThat(overlaps).as("never two records of one key at once").isEmpty();
        assertThat(mostAtOnce.get()).as("keys run side by side").isGreaterThan(4).isLessThanOrEqualTo(16);
    }

    @Test
    void recordsWithoutAnOrderKeyOfOneKeyDoNotWaitForEachOther(EmbeddedKafkaBroker broker) throws Exception {
        Lab lab = Lab.of(broker, 1);
        lab.send(List.of(Map.entry("council", "proposal:0"), Map.entry("council", "proposal:1"),
                Map.entry("council", "proposal:2"), Map.entry("council", "proposal:3"),
                Map.entry("council", "proposal:4")));
        String out = lab.out();
        // The first record waits until the test lets it go: the four after it, of the same key, go on without it.
        CompletableFuture<List<ProducerRecord<byte[], byte[]>>> first = new CompletableFuture<>();
        ParallelLoop.Handler unordered = new ParallelLoop.Handler() {
            @Override
            public byte[] orderKey(ConsumerRecord<byte[], byte[]> record) {
                return null;
            }

            @Override
            public ParallelLoop.Work start(ConsumerRecord<byte[], byte[]> record) {
                ProducerRecord<byte[], byte[]> output = new ProducerRecord<>(out, record.key(), record.value());
                if (record.offset() == 0) {
                    return ParallelLoop.Work.later(first.thenApply(go -> List.of(output)));
                }
                return ParallelLoop.Work.done(List.of(output));
            }

            @Override
            public ProducerRecord<byte[], byte[]> failed(ConsumerRecord<byte[], byte[]> record, Throwable error) {
                throw new AssertionError("no work fails here", error);
            }
        };
        ParallelLoop loop = new ParallelLoop("it-unordered", lab.client(), lab.app() + "-loop", "a", lab.in(),
                ParallelLoop.Limits.of(8), Duration.ofSeconds(10), unordered);
        Thread thread = new Thread(loop, "parallel-loop-it-unordered");
        thread.start();
        try {
            assertThat(readUntil(lab.bootstrap(), out, all -> all.size() >= 4))
                    .containsExactlyInAnyOrder("proposal:1", "proposal:2", "proposal:3", "proposal:4");
            first.complete(List.of());
            assertThat(readUntil(lab.bootstrap(), out, all -> all.size() >= 5)).contains("proposal:0");
        } finally {
            loop.close();
            thread.join(30_000);
        }
    }

    /**
     * The executor's side-effect path: a record's mark is committed before its work starts, so a mark whose
     * transaction fails never starts the work, and the record is read again from the last commit. The loop's
     * transactional id is fenced while the first record is being started (as a broker restart or a rival
     * instance would), so the transaction that carries its mark cannot commit.
     */
    @Test
    void aMarkWhoseTransactionDidNotCommitNeverStartsItsWork(EmbeddedKafkaBroker broker) throws Exception {
        Lab lab = Lab.of(broker, 1);
        lab.send(List.of(Map.entry("call", "effect:0"), Map.entry("call", "effect:1")));
        String out = lab.out();
        String group = lab.app() + "-loop";
        Map<String, AtomicInteger> starts = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
        try (Admin admin = Admin.create(lab.client())) {
            ParallelLoop.Handler sideEffects = new ParallelLoop.Handler() {
                @Override
                public byte[] orderKey(ConsumerRecord<byte[], byte[]> record) {
                    return record.key();
                }

                @Override
                public ParallelLoop.Work start(ConsumerRecord<byte[], byte[]> record) {
                    String value = new String(record.value(), StandardCharsets.UTF_8);
                    if (starts.computeIfAbsent(value, key -> new AtomicInteger()).incrementAndGet() == 1
                            && record.offset() == 0) {
                        try {
                            admin.fenceProducers(List.of(group + "-a")).all().get(30, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    return ParallelLoop.Work.afterCommit(List.of(new ProducerRecord<>(out, record.key(),
                            utf8("mark:" + value))), () -> {
                                effects.computeIfAbsent(value, key -> new AtomicInteger()).incrementAndGet();
                                return CompletableFuture.completedFuture(List.of(new ProducerRecord<>(out,
                                        record.key(), utf8("done:" + value))));
                            });
                }

                @Override
                public ProducerRecord<byte[], byte[]> failed(ConsumerRecord<byte[], byte[]> record, Throwable error) {
                    throw new AssertionError("no work fails here", error);
                }
            };
            ParallelLoop loop = new ParallelLoop("it-marks", lab.client(), group, "a", lab.in(),
                    ParallelLoop.Limits.of(8), Duration.ofSeconds(10), sideEffects);
            Thread thread = new Thread(loop, "parallel-loop-it-marks");
            thread.start();
            try {
                readUntil(lab.bootstrap(), out, all -> all.contains("done:effect:0") && all.contains("done:effect:1"));
                Thread.sleep(500);
            } finally {
                loop.close();
                thread.join(30_000);
            }
        }
        assertThat(starts.get("effect:0")).as("started again after its mark's transaction failed")
                .hasValueGreaterThanOrEqualTo(2);
        assertThat(effects).as("each side effect ran once: never for the mark that did not commit")
                .containsOnlyKeys("effect:0", "effect:1").allSatisfy((value, runs) -> assertThat(runs).hasValue(1));
        assertThat(Kafka.readRaw(lab.bootstrap(), out).stream().map(record -> new String(record.value(),
                StandardCharsets.UTF_8)).toList()).as("what a read_committed reader sees")
                .containsExactlyInAnyOrder("mark:effect:0", "done:effect:0", "mark:effect:1", "done:effect:1");
    }

    /** An app allowed on the broker, with an input and an output topic of its own. */
    private record Lab(String bootstrap, String app, Map<String, Object> client, String in, String out) {
        static Lab of(EmbeddedKafkaBroker broker, int partitions) throws Exception {
            String bootstrap = broker.bootstrapServers();
            String app = "it-" + UUID.randomUUID().toString().substring(0, 8);
            Logins.allowApp(bootstrap, app);
            Lab lab = new Lab(bootstrap, app, Logins.as(bootstrap, Principals.APP), app + "-in", app + "-out");
            try (Admin admin = Admin.create(lab.client())) {
                admin.createTopics(List.of(new NewTopic(lab.in(), Optional.of(partitions), Optional.empty()),
                        new NewTopic(lab.out(), Optional.of(partitions), Optional.empty()))).all()
                        .get(30, TimeUnit.SECONDS);
            }
            return lab;
        }

        /** Sends these keys and values to the input topic, in this order. */
        void send(List<Map.Entry<String, String>> records) {
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(client, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                records.forEach(record -> producer.send(new ProducerRecord<>(in, utf8(record.getKey()),
                        utf8(record.getValue()))));
            }
        }
    }

    private static List<String> readUntil(String bootstrap, String topic, Predicate<List<String>> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> values = List.of();
        while (System.nanoTime() < deadline) {
            values = Kafka.readRaw(bootstrap, topic).stream()
                    .map(record -> new String(record.value(), StandardCharsets.UTF_8)).toList();
            if (done.test(values)) {
                return values;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("timed out reading " + topic + ", saw " + values.size() + ": " + values);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Answers each record after a random few milliseconds, with its own value on the output topic. */
    private static final class Handler implements ParallelLoop.Handler {
        final String out;
        final ScheduledExecutorService clock;
        final Map<String, AtomicInteger> perKey;
        final AtomicInteger running;
        final AtomicInteger mostAtOnce;
        final List<String> overlaps;
        final Predicate<String> stuck;
        final AtomicInteger started = new AtomicInteger();

        Handler(String out, ScheduledExecutorService clock, Map<String, AtomicInteger> perKey, AtomicInteger running,
                AtomicInteger mostAtOnce, List<String> overlaps, Predicate<String> stuck) {
            this.out = out;
            this.clock = clock;
            this.perKey = perKey;
            this.running = running;
            this.mostAtOnce = mostAtOnce;
            this.overlaps = overlaps;
            this.stuck = stuck;
        }

        @Override
        public ParallelLoop.Work start(ConsumerRecord<byte[], byte[]> record) {
            started.incrementAndGet();
            String key = new String(record.key(), StandardCharsets.UTF_8);
            String value = new String(record.value(), StandardCharsets.UTF_8);
            CompletableFuture<List<ProducerRecord<byte[], byte[]>>> outputs = new CompletableFuture<>();
            if (perKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
                synchronized (overlaps) {
                    overlaps.add(value);
                }
            }
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            Runnable finish = () -> {
                perKey.get(key).decrementAndGet();
                running.decrementAndGet();
            };
            if (stuck.test(value)) {
                outputs.whenComplete((done, error) -> finish.run()); // cancelled when the loop stops
                return ParallelLoop.Work.later(outputs);
            }
            clock.schedule(() -> {
                finish.run();
                outputs.complete(List.of(new ProducerRecord<>(out, record.key(), record.value())));
            }, ThreadLocalRandom.current().nextInt(1, 40), TimeUnit.MILLISECONDS);
            return ParallelLoop.Work.later(outputs);
        }

        @Override
        public ProducerRecord<byte[], byte[]> failed(ConsumerRecord<byte[], byte[]> record, Throwable error) {
            throw new AssertionError("no work fails here", error);
        }
    }
}
