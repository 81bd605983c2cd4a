package io.cognitionstreams.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientPropertiesTest {

    @TempDir
    Path dir;

    @Test
    void aFileGivesItsSettingsAndTheEnvironmentNamesOneWhenNoFlagDoes() throws IOException {
        Path file = Files.writeString(dir.resolve("client.properties"), "security.protocol=SASL_SSL\n"
                + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
                + "  username=\"k\" password=\"s\";\n");

        Map<String, Object> settings = ClientProperties.load(file, Map.of());
        assertThat(settings).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule "
                        + "required username=\"k\" password=\"s\";");
        assertThat(ClientProperties.load(null, Map.of(ClientProperties.ENVIRONMENT, file.toString())))
                .isEqualTo(settings);
        assertThat(ClientProperties.load(null, Map.of())).isEmpty();
    }

    @Test
    void aMissingFileIsAClearErrorNamingItAndWhereItsNameCameFrom() {
        assertThatThrownBy(() -> ClientProperties.load(dir.resolve("nope.properties"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot read the client settings in " + dir.resolve("nope.properties")
                        + ": no such file");
        assertThatThrownBy(() -> ClientProperties.load(null, Map.of(ClientProperties.ENVIRONMENT, "/no/such")))
                .hasMessage("cannot read the client settings in /no/such (named by COGNITION_COMMAND_CONFIG): "
                        + "no such file");
    }

    @Test
    void keysNoKafkaClientKnowsAreFoundThroughTheStreamsPrefixes() {
        assertThat(ClientProperties.unknownKeys(Set.of("security.protocol", "producer.linger.ms",
                "main.consumer.max.poll.records", "processing.guarantee", "topic.retention.ms", "admin.retries",
                "cognition.schema.registry.url", "sasl.jaas.confg", "consumer.max.pol.records", "lingr.ms")))
                .containsExactly("consumer.max.pol.records", "lingr.ms", "sasl.jaas.confg");
    }
}
