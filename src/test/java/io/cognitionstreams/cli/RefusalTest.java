package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

class RefusalTest {

    @TempDir
    Path dir;

    @Test
    void namesThePrincipalOfTheClientSettingsTheIntentAndTheTopicGiven() throws Exception {
        CommandLine produce = parsed("produce", "--topic", "cognition.identity", "--command-config",
                settings("agent-acme").toString());

        // As describeConfigs reports it: no topic named.
        assertThat(Refusal.describe(new ExecutionException(new TopicAuthorizationException(
                "Topic authorization failed.")), produce))
                .hasValueSatisfying(line -> assertThat(line).startsWith(
                        "not authorized: User:agent-acme may not write to topic cognition.identity."));
    }

    @Test
    void aReaderIsRefusedReadingTheTopicsKafkaNames() throws Exception {
        CommandLine tail = parsed("tail", "--topic", "channel.cli_chat", "--command-config",
                settings("operator").toString());

        assertThat(Refusal.describe(new KafkaException("poll failed", new TopicAuthorizationException(
                Set.of("channel.web_chat"))), tail))
                .hasValueSatisfying(line -> assertThat(line)
                        .startsWith("not authorized: User:operator may not read topic channel.web_chat."));
        assertThat(Refusal.describe(new GroupAuthorizationException("no", "my-group"), tail))
                .hasValueSatisfying(line -> assertThat(line).contains("may not use consumer group my-group"));
    }

    @Test
    void withoutALoginItSaysSoAndOtherErrorsAreNotRefusals() {
        CommandLine tail = parsed("tail", "--topic", "channel.cli_chat");

        assertThat(Refusal.describe(new TopicAuthorizationException(Set.of("channel.cli_chat")), tail))
                .hasValueSatisfying(line -> assertThat(line).contains("User:ANONYMOUS (os user "));
        assertThat(Refusal.describe(new KafkaException("broker down"), tail)).isEmpty();
    }

    private Path settings(String user) throws Exception {
        return Files.writeString(dir.resolve(user + ".properties"), "security.protocol=SASL_PLAINTEXT\n"
                + "sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram."
                + "ScramLoginModule required username=\"" + user + "\" password=\"secret\";\n");
    }

    private static CommandLine parsed(String... args) {
        return CognitionCli.commandLine().parseArgs(args).subcommand().commandSpec().commandLine();
    }
}
