package io.cognitionstreams.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EmbeddedKafkaBrokerIT {

    /** Generous: the build machine is shared; this is a hang guard, not a performance bound. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration CONSUME_TIMEOUT = Duration.ofSeconds(60);

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OnOneBroker {

        private EmbeddedKafkaBroker broker;

        @BeforeAll
        void startBroker(@TempDir Path dataDir) {
            broker = EmbeddedKafkaBroker.start(new BrokerSettings(dataDir, 0, 0, READY_TIMEOUT));
        }

        @AfterAll
        void stopBroker() {
            if (broker != null) {
                broker.close();
            }
        }

        @Test
        void idempotentProducerRecordsReachReadCommittedConsumer() throws Exception {
            assertThat(broker.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");
            createTopic(broker, "round-trip");
            List<String> values = values("value-", 100);

            produce(broker, "round-trip", values);

            assertThat(consume(broker, "round-trip", values.size(), "read_committed"))
                    .containsExactlyElementsOf(values);
        }

        @Test
        void readCommittedConsumerSeesCommittedButNotAbortedTransactions() throws Exception {
            createTopic(broker, "transactions");
            Properties props = producerProps(broker);
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-broker-it-" + UUID.randomUUID());

            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                producer.initTransactions();
                sendInTransaction(producer, values("committed-", 3));
                producer.beginTransaction();
                values("aborted-", 3).forEach(v -> producer.send(new ProducerRecord<>("transactions", v)));
                producer.flush();
                producer.abortTransaction();
                sendInTransaction(producer, values("later-", 3));
            }

            List<String> committed = new ArrayList<>(values("committed-", 3));
            committed.addAll(values("later-", 3));
            assertThat(consume(broker, "transactions", 6, "read_committed")).containsExactlyElementsOf(committed);
            // The aborted records were really written: only the isolation level hides them.
            assertThat(consume(broker, "transactions", 9, "read_uncommitted"))
                    .containsSubsequence(values("aborted-", 3));
        }

        private void sendInTransaction(KafkaProducer<String, String> producer, List<String> values) {
            producer.beginTransaction();
            values.forEach(v -> producer.send(new ProducerRecord<>("transactions", v)));
            producer.commitTransaction();
        }
    }

    @Test
    void topicRecordsAndClusterIdSurviveRestartOnSameDataDir(@TempDir Path dataDir) throws Exception {
        BrokerSettings settings = new BrokerSettings(dataDir, 0, 0, READY_TIMEOUT);
        List<String> values = values("kept-", 10);
        String clusterId;

        try (EmbeddedKafkaBroker first = EmbeddedKafkaBroker.start(settings)) {
            createTopic(first, "kept");
            produce(first, "kept", values);
            try (Admin admin = admin(first)) {
                clusterId = admin.describeCluster().clusterId().get();
            }
            assertThat(first.clusterId()).isEqualTo(clusterId);
            assertThat(first.dataDir()).isEqualTo(dataDir.toAbsolutePath().normalize());
        }
        assertThat(Files.readString(dataDir.resolve("cluster.id")).trim()).isEqualTo(clusterId);

        try (EmbeddedKafkaBroker second = EmbeddedKafkaBroker.start(settings);
             Admin admin = admin(second)) {
            assertThat(second.clusterId()).isEqualTo(clusterId);
            assertThat(admin.describeCluster().clusterId().get()).isEqualTo(clusterId);
            assertThat(admin.listTopics().names().get()).contains("kept");
            assertThat(consume(second, "kept", values.size(), "read_committed")).containsExactlyElementsOf(values);
        }
    }

    @Test
    void portAlreadyInUseFailsWithClearMessage(@TempDir Path dataDir) throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            assertThatThrownBy(() -> EmbeddedKafkaBroker.start(new BrokerSettings(dataDir, port, 0, READY_TIMEOUT)))
                    .isInstanceOf(BrokerStartException.class)
                    .hasMessageContaining("Port " + port + " on 127.0.0.1 is already in use")
                    .hasMessageContaining("Pass another port")
                    .hasMessageContaining("--bootstrap-servers");
            assertThatThrownBy(() -> EmbeddedKafkaBroker.start(new BrokerSettings(dataDir, 0, port, READY_TIMEOUT)))
                    .isInstanceOf(BrokerStartException.class)
                    .hasMessageContaining("Controller port " + port + " on 127.0.0.1 is already in use")
                    .hasMessageContaining("--bootstrap-servers");
        }
    }

    @Test
    void notReadyWithinTimeoutFailsAndLeavesNothingRunning(@TempDir Path dataDir) throws IOException {
        int port = freePort();

        // No broker can be up within 1 ms: start() must give up and stop what it started.
        assertThatThrownBy(() -> EmbeddedKafkaBroker.start(
                new BrokerSettings(dataDir, port, 0, Duration.ofMillis(1))))
                .isInstanceOf(BrokerStartException.class)
                .hasMessageContaining("was not ready within 1 ms");
        assertPortIsFree(port);
    }

    @Test
    void closeTwiceIsHarmless(@TempDir Path dataDir) throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerSettings(dataDir, 0, 0, READY_TIMEOUT));
        String bootstrap = broker.bootstrapServers();
        Thread shutdownHook = new Thread(broker::close, "shutdown-hook");

        shutdownHook.start();
        broker.close();
        shutdownHook.join();

        assertThatCode(broker::close).doesNotThrowAnyException();
        assertPortIsFree(Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1)));
    }

    @Test
    void settingsDefaultsAndValidation() {
        BrokerSettings defaults = BrokerSettings.defaults();
        assertThat(defaults.dataDir()).isEqualTo(Path.of("data", "kafka"));
        assertThat(defaults.brokerPort()).isEqualTo(9092);
        assertThat(defaults.controllerPort()).isEqualTo(9093);
        assertThat(defaults.readyTimeout()).isPositive();
        assertThatThrownBy(() -> new BrokerSettings(Path.of("x"), 9092, 9092, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BrokerSettings(Path.of("x"), 70000, 0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> values(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> String.format("%s%03d", prefix, i))
                .collect(Collectors.toList());
    }

    private static Admin admin(EmbeddedKafkaBroker broker) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        return Admin.create(props);
    }

    private static void createTopic(EmbeddedKafkaBroker broker, String topic) throws Exception {
        try (Admin admin = admin(broker)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    /** Sends with an idempotent acks=all producer and fails if any send failed. */
    private static void produce(EmbeddedKafkaBroker broker, String topic, List<String> values) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(broker))) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                sends.add(producer.send(new ProducerRecord<>(topic, "key-" + i, values.get(i))));
            }
            producer.flush();
            for (Future<RecordMetadata> send : sends) {
                send.get();
            }
        }
    }

    private static Properties producerProps(EmbeddedKafkaBroker broker) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return props;
    }

    /** Reads from the start of the topic in a fresh consumer group until {@code count} values arrived. */
    private static List<String> consume(EmbeddedKafkaBroker broker, String topic, int count, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "embedded-broker-it-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + CONSUME_TIMEOUT.toNanos();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            while (values.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    private static void assertPortIsFree(int port) {
        assertThatCode(() -> {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            }
        }).as("port %d is released", port).doesNotThrowAnyException();
    }
}
