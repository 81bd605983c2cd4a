package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamsSettingsTest {

    private static final String SESSION_TIMEOUT =
            StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
    private static final String HEARTBEAT = StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
    private static final String TRANSACTION_TIMEOUT =
            StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);

    @Test
    void theSessionTimeoutIs15SecondsUnlessTuned(@TempDir Path stateDir) {
        // The instance id is kept in the state directory, which StreamsSettings reads.
        Settings local = Settings.local("127.0.0.1:9092", "app", stateDir);
        Settings.Tuning tuning = local.tuning();
        Settings tuned = new Settings(local.bootstrapServers(), local.applicationId(), local.stateDir(),
                local.schemaRegistryUrl(), local.partitions(), local.replicationFactor(), local.streamThreads(),
                local.model(), local.compression(), local.routing(), local.gatekeeper(), local.council(),
                tuning.withSessionTimeout(Duration.ofSeconds(6)),
                local.clientProperties(), local.executor(), local.memory());

        assertThat(StreamsSettings.of(local, "routing", Set.of())).containsEntry(SESSION_TIMEOUT, 15_000)
                .containsEntry(HEARTBEAT, 5_000).containsEntry(TRANSACTION_TIMEOUT, 10_000);
        assertThat(StreamsSettings.of(tuned, "routing", Set.of())).containsEntry(SESSION_TIMEOUT, 6_000)
                .containsEntry(HEARTBEAT, 2_000).containsEntry(TRANSACTION_TIMEOUT, 6_000);
    }
}
