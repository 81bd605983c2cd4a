package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topics;

/**
 * The net under the output guard, on a real broker: a channel topic's limit is lowered while the app runs, so the
 * app's view of it is stale and the broker itself refuses a routed block. The output that led to it must end as
 * one dead letter with the broker's reason and nothing of it on any channel, and the outputs after it must flow.
 */
@ExtendWith(IsolatedBroker.class)
class RefusedOutputIT {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @Test
    void anOutputTheBrokerRefusesIsDeadLetteredWholeAndTheNextOneIsRouted(EmbeddedKafkaBroker broker,
                                                                         @TempDir Path stateDir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = "refused-" + UUID.randomUUID().toString().substring(0, 8);
        Topics topics = new Topics(new io.cognitionstreams.serde.SingleObjectAvroSerdeFactory());
        try (CognitionRuntime app = CognitionRuntime.start(Settings.local(bootstrap, run, stateDir))) {
            app.awaitRunning(TIMEOUT);
            String webChat = Topics.channelTopic(Channel.WEB_CHAT);
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, webChat),
                        List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "20000"),
                                AlterConfigOp.OpType.SET)))).all().get();
            }

            String big = run + "-big";
            String small = run + "-small";
            RecordMetadata refused = Kafka.send(bootstrap, topics.llmOutputs, big, Records.output(big,
                    "PLAN: say it at length\nRESPONSE: " + "All is well. ".repeat(4000)).setTimestamp(Instant.now())
                    .build());
            Kafka.send(bootstrap, topics.llmOutputs, small, Records.output(small, "PLAN: be brief\nRESPONSE: ok")
                    .setTimestamp(Instant.now()).build());

            Kafka.readUntil(bootstrap, topics.channel(Channel.WEB_CHAT), block -> block.getSessionId()
                    .equals(small), found -> !found.isEmpty(), TIMEOUT);
            DeadLetter letter = Kafka.readUntil(bootstrap, topics.deadLetters, dead -> dead.getSourceTopic()
                    .equals(Topics.LLM_OUTPUTS) && dead.getSourceOffset() == refused.offset()
                    && dead.getSourcePartition() == refused.partition(), found -> !found.isEmpty(), TIMEOUT).get(0);
            assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
            assertThat(letter.getReason()).startsWith("the brokers refused what this record led to: ")
                    .contains("RecordTooLargeException").doesNotContain("\n");
            for (Channel channel : List.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.DISCORD_CHAT,
                    Channel.COUNCIL_CHAT)) {
                assertThat(Kafka.readAll(bootstrap, topics.channel(channel),
                        (RoutedBlock block) -> block.getSessionId().equals(big))).as("nothing of it on " + channel)
                        .isEmpty();
            }
            assertThat(Kafka.readAll(bootstrap, topics.deadLetters, dead -> dead.getSourceTopic()
                    .equals(Topics.LLM_OUTPUTS) && dead.getSourceOffset() == refused.offset())).hasSize(1);
            assertThat(app.states().values()).containsOnly(KafkaStreams.State.RUNNING);
        }
    }
}
