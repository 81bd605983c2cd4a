package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.LogConfigurations;

class StreamsSettingsTest {

    private static final String SESSION_TIMEOUT =
            StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
    private static final String HEARTBEAT = StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
    private static final String TRANSACTION_TIMEOUT =
            StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
    private static final String INSTANCE_ID =
            StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);

    @Test
    void theSessionTimeoutIs15SecondsUnlessTuned(@TempDir Path stateDir) {
        // The instance id is kept in the state directory, which StreamsSettings reads.
        Settings local = Settings.local("127.0.0.1:9092", "app", stateDir);
        Settings tuned = withTuning(local, local.tuning().withSessionTimeout(Duration.ofSeconds(6)));

        assertThat(StreamsSettings.of(local, "routing", Set.of())).containsEntry(SESSION_TIMEOUT, 15_000)
                .containsEntry(HEARTBEAT, 5_000).containsEntry(TRANSACTION_TIMEOUT, 10_000)
                .containsKey(INSTANCE_ID).doesNotContainKey(StreamsConfig.GROUP_PROTOCOL_CONFIG);
        assertThat(StreamsSettings.of(tuned, "routing", Set.of())).containsEntry(SESSION_TIMEOUT, 6_000)
                .containsEntry(HEARTBEAT, 2_000).containsEntry(TRANSACTION_TIMEOUT, 6_000);
    }

    @Test
    void anIdleStreamThreadOfTheApprovalPathPollsAFifthOfTheCommitIntervalSoOutputWaitsAboutThatInterval(@TempDir Path stateDir) {
        Settings local = Settings.local("127.0.0.1:9092", "app", stateDir);
        Settings.Tuning defaults = local.tuning();
        Settings tuned = withTuning(local, new Settings.Tuning(Duration.ofMillis(80), defaults.standbyReplicas(),
                defaults.assemblyThreads(), defaults.hangingTransactionAfter(), defaults.abortHangingTransactions(),
                defaults.sessionTimeout(), defaults.groupProtocol(), defaults.fenceDeparted(),
                defaults.stateStoreMemory()));

        assertThat(StreamsSettings.of(local, "council", Set.of()))
                .containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 25L)
                .containsEntry(StreamsConfig.POLL_MS_CONFIG, 5L);
        assertThat(StreamsSettings.of(tuned, "gatekeeper", Set.of())).containsEntry(StreamsConfig.POLL_MS_CONFIG, 16L);
        assertThat(StreamsSettings.of(local, "assembly", Set.of())).as("off the approval path: Kafka's default")
                .doesNotContainKey(StreamsConfig.POLL_MS_CONFIG);
    }

    @Test
    void underTheStreamsProtocolTheSessionAndStandbysAreTheGroupsOnTheBroker(@TempDir Path stateDir) {
        Settings local = Settings.local("127.0.0.1:9092", "app", stateDir);
        Settings.Tuning tuning = new Settings.Tuning(local.tuning().commitInterval(), 1,
                local.tuning().assemblyThreads(), local.tuning().hangingTransactionAfter(), true,
                Duration.ofSeconds(3), GroupProtocol.STREAMS, true, local.tuning().stateStoreMemory());
        Settings streams = withTuning(local, tuning);

        // The streams protocol refuses static membership and ignores the client-side session and standbys.
        assertThat(StreamsSettings.of(streams, "routing", Set.of()))
                .containsEntry(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams")
                .containsEntry(TRANSACTION_TIMEOUT, 5_000)
                .doesNotContainKeys(INSTANCE_ID, SESSION_TIMEOUT, HEARTBEAT, StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG);
        assertThat(StreamsSettings.groupConfigs(streams)).containsOnly(
                Map.entry("streams.session.timeout.ms", "3000"),
                Map.entry("streams.heartbeat.interval.ms", "1000"),
                Map.entry("streams.num.standby.replicas", "1"));
    }

    @Test
    void storesLoadWithShortFetchWaitsThatAnOperatorsClientSettingsMayChange(@TempDir Path stateDir) {
        String global = StreamsConfig.globalConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
        String restore = StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
        Settings local = Settings.local("127.0.0.1:9092", "app", stateDir);
        Settings operators = local.withClient(Map.of(global, "500"), local.tuning());

        assertThat(StreamsSettings.of(local, "assembly", Set.of())).containsEntry(global, 100)
                .containsEntry(restore, 50);
        assertThat(StreamsSettings.of(operators, "assembly", Set.of())).containsEntry(global, "500")
                .containsEntry(restore, 50);
    }

    @Test
    void aCapabilityStartsWithoutKafkaAskingForTheGlobalProcessingHandlerItHas(@TempDir Path stateDir) {
        Settings local = Settings.local("127.0.0.1:1", "app", stateDir);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in").to("out");
        // The tests' log configuration keeps Kafka's loggers to errors.
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        List<String> warned = LogConfigurations.captured(context, StreamsConfig.class.getName(), Level.WARN);
        Properties props = StreamsSettings.of(local, "routing", Set.of());
        try {
            // The main consumers, and with them the assignor's settings, are made as the instance is built.
            new KafkaStreams(builder.build(props), props).close(Duration.ofSeconds(10));
        } finally {
            LogConfigurations.release(context, StreamsConfig.class.getName());
        }

        assertThat(props).containsEntry(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        assertThat(warned).noneMatch(message -> message.contains("processing.exception.handler.global.enabled"));
    }

    private static Settings withTuning(Settings local, Settings.Tuning tuning) {
        return local.withClient(local.clientProperties(), tuning);
    }
}
