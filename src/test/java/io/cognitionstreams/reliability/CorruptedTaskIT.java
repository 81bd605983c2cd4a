package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.StreamsClients;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;

/**
 * What a stalled broker-restart run showed (docs/reliability.md, "Broker restart"), without the broker outage: under
 * exactly_once_v2, an active task that Kafka Streams finds corrupted (as when a commit times out after max.block.ms)
 * is closed dirty, which drops the records it had fetched but not yet processed, and revived with its input
 * partitions marked to be reset to the committed offsets. Kafka Streams then enforces a rebalance (KAFKA-12486);
 * the new assignment closes the revived task, still pending initialization, and creates a new one, which does not
 * reset. The consumer keeps its position past the dropped records, and the next commit passes them: they are never
 * processed. Here one task's punctuation throws {@link TaskCorruptedException} once, in the middle of a fetched
 * batch, after a first batch was committed; with the app's clients ({@link StreamsClients}) every input is still
 * processed. With Kafka's own, about 180 of them are not.
 */
class CorruptedTaskIT {

    private static final int COMMITTED = 20;
    private static final int BEFORE = 200;
    private static final int AFTER = 50;
    private static final int TOTAL = COMMITTED + BEFORE + AFTER;
    private static final AtomicBoolean CORRUPTED = new AtomicBoolean();

    @Test
    void aCorruptedTaskStillProcessesEveryRecordItHadFetched(@TempDir Path dir) throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerSettings(dir.resolve("kafka"),
                freePort(), freePort(), Duration.ofSeconds(60)))) {
            String bootstrap = broker.bootstrapServers();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic("in", 1, (short) 1), new NewTopic("out", 1, (short) 1)))
                        .all().get(60, TimeUnit.SECONDS);
            }
            send(bootstrap, 0, COMMITTED);
            // The app's clients (StreamsClients): with Kafka's own, the inputs fetched but not processed when the task
            // was corrupted are never processed.
            try (KafkaStreams streams = new KafkaStreams(topology(), properties(bootstrap, dir),
                    new StreamsClients())) {
                streams.start();
                // A commit first, so that the reset is to an offset and not to the beginning.
                awaitCommitted(bootstrap, COMMITTED);
                // At once, so that one poll fetches them all, and the task is corrupted among them.
                send(bootstrap, COMMITTED, BEFORE);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!CORRUPTED.get() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                Thread.sleep(3_000);
                // After the corruption: what the task processes next moves the committed offset on.
                send(bootstrap, COMMITTED + BEFORE, AFTER);
                Map<Integer, Integer> outputs = awaitOutputs(bootstrap, TOTAL, Duration.ofSeconds(30));
                assertThat(CORRUPTED).as("the task was corrupted once").isTrue();
                List<Integer> missing = new ArrayList<>();
                for (int i = 0; i < TOTAL; i++) {
                    if (!outputs.containsKey(i)) {
                        missing.add(i);
                    }
                }
                assertThat(missing).as("inputs never processed").isEmpty();
                // Not checked: the outputs of what the task processed before it was corrupted may be there twice.
                // Kafka Streams 4.3 commits the thread's open transaction before closing a corrupted task, with the
                // other tasks' offsets only, and then the revived task reads those inputs again. After a commit that
                // timed out (the broker-restart runs) the corrupted tasks' offsets are already in that transaction.
            }
        }
    }

    private static org.apache.kafka.streams.Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
                .process(() -> new Processor<String, String, String, String>() {
                    private ProcessorContext<String, String> context;
                    private int processed;

                    @Override
                    public void init(ProcessorContext<String, String> context) {
                        this.context = context;
                        // As a commit that times out does, between two batches, the task's queue still full: Kafka
                        // Streams handles an exception from a punctuation as one from a commit (no commit of its own).
                        context.schedule(Duration.ofMillis(1), PunctuationType.WALL_CLOCK_TIME, now -> {
                            if (processed >= COMMITTED + 10 && CORRUPTED.compareAndSet(false, true)) {
                                throw new TaskCorruptedException(Set.of(context.taskId()));
                            }
                        });
                    }

                    @Override
                    public void process(Record<String, String> record) {
                        processed++;
                        context.forward(record);
                    }
                })
                .to("out", Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    private static Properties properties(String bootstrap, Path dir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "corrupted-task");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString());
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        return props;
    }

    private static void send(String bootstrap, int from, int count) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 50),
                new StringSerializer(), new StringSerializer())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>("in", "k", String.valueOf(i)));
            }
            producer.flush();
        }
    }

    private static void awaitCommitted(String bootstrap, long offset) throws Exception {
        TopicPartition in = new TopicPartition("in", 0);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                OffsetAndMetadata committed = admin.listConsumerGroupOffsets("corrupted-task")
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).get(in);
                if (committed != null && committed.offset() >= offset) {
                    return;
                }
                Thread.sleep(100);
            }
        }
        throw new AssertionError("the app never committed " + offset + " inputs");
    }

    /** Outputs by input number, read_committed, once at least {@code count} distinct ones are there or on timeout. */
    private static Map<Integer, Integer> awaitOutputs(String bootstrap, int count, Duration timeout) {
        Map<Integer, Integer> outputs = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new StringDeserializer())) {
            TopicPartition out = new TopicPartition("out", 0);
            consumer.assign(List.of(out));
            consumer.seekToBeginning(List.of(out));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (outputs.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    outputs.merge(Integer.parseInt(record.value()), 1, Integer::sum);
                }
            }
            // A little longer, for duplicates and stragglers.
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < settle) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    outputs.merge(Integer.parseInt(record.value()), 1, Integer::sum);
                }
            }
        }
        return outputs;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
