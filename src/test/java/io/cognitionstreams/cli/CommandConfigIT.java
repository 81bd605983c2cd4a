package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.clients.ClientProperties;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.TestMcpServer;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SharedBroker;

/**
 * A setting in the --command-config file reaches every kind of client: the CLI's admin, producer and consumer,
 * and the app's Kafka Streams clients, model worker and executor. The setting is a metrics reporter, which each client
 * configures when it is made, with that client's own configuration.
 */
@ExtendWith(SharedBroker.class)
class CommandConfigIT {

    /** Client ids of every client that configured the reporter. */
    static final List<String> CONFIGURED = new CopyOnWriteArrayList<>();

    public static final class Reporter implements MetricsReporter {
        @Override
        public void configure(Map<String, ?> configs) {
            CONFIGURED.add(String.valueOf(configs.get("client.id")));
        }

        @Override
        public void init(List<KafkaMetric> metrics) {
        }

        @Override
        public void metricChange(KafkaMetric metric) {
        }

        @Override
        public void metricRemoval(KafkaMetric metric) {
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aSettingFromTheFileReachesEveryClientKind(EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        Path file = Files.writeString(dir.resolve("client.properties"),
                "metric.reporters=" + Reporter.class.getName() + "\n");
        String session = "config-" + UUID.randomUUID().toString().substring(0, 8);
        Path line = Files.writeString(dir.resolve("request.jsonl"), JsonAvro.toJson(Records.request(session,
                "Plan the deploy of release 2.4.0.").setTimestamp(Instant.now()).build()) + "\n");

        // The app's topics first, as the app makes them: otherwise `produce` below may be the first to write
        // cognition.requests, the broker creates it with its default single partition, and the app then refuses to
        // start beside a memory topic of three (whichever test of the shared broker ran first decides).
        Settings local = Settings.local(bootstrap, "config-" + UUID.randomUUID().toString().substring(0, 8),
                dir.resolve("state"));
        try (Admin admin = Admin.create(local.clientConfig())) {
            TopicProvisioner.ensure(admin, Drivers.topics(), local.partitions(), local.replicationFactor());
        }

        CONFIGURED.clear();
        assertThat(Cli.run("topics", "--describe", "--bootstrap-servers", bootstrap, "--command-config",
                file.toString()).exitCode()).isZero();
        assertThat(CONFIGURED).as("the admin client").anyMatch(id -> id.startsWith("adminclient-"));
        CONFIGURED.clear();
        assertThat(Cli.run("produce", "--topic", "cognition.requests", "--file", line.toString(),
                "--bootstrap-servers", bootstrap, "--command-config", file.toString()).exitCode()).isZero();
        assertThat(CONFIGURED).as("the producer").anyMatch(id -> id.startsWith("producer-"));
        CONFIGURED.clear();
        assertThat(Cli.run("tail", "--topic", "cognition.requests", "--from", "beginning", "--max", "1",
                "--timeout", "20s", "--bootstrap-servers", bootstrap, "--command-config", file.toString())
                .exitCode()).isZero();
        assertThat(CONFIGURED).as("the consumer").anyMatch(id -> id.startsWith("consumer-"));

        CONFIGURED.clear();
        String app = local.applicationId();
        Settings settings = local.withClient(ClientProperties.load(file, Map.of()), local.tuning())
                .withExecutor(new ExecutorSettings(List.of(TestMcpServer.config("test")),
                        ExecutorSettings.DEFAULT_CALL_TIMEOUT, 1, ExecutorSettings.DEFAULT_MAX_RESULT_BYTES,
                        Optional.empty(), List.of(), 0, Optional.empty()));
        try (CognitionRuntime runtime = CognitionRuntime.start(settings)) {
            runtime.awaitRunning(Duration.ofMinutes(2));
            assertThat(CONFIGURED).as("every capability's Kafka Streams clients")
                    .anyMatch(id -> id.startsWith(app + "-assembly-") && id.endsWith("-producer"))
                    .anyMatch(id -> id.startsWith(app + "-governance-") && id.endsWith("-consumer"));
            assertThat(CONFIGURED).as("the model worker's consumer and producer")
                    .anyMatch(id -> id.startsWith("consumer-" + app + "-model-worker"))
                    .anyMatch(id -> id.startsWith("producer-" + app + "-model-worker"));
            assertThat(CONFIGURED).as("the executor's consumer and producer")
                    .anyMatch(id -> id.startsWith("consumer-" + app + "-executor"))
                    .anyMatch(id -> id.startsWith("producer-" + app + "-executor"));
        }
    }
}
