package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/** `cognition session import` into a running instance: the next turn of the session is assembled from it. */
@ExtendWith(SharedBroker.class)
class SessionImportIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void anImportedConversationIsTheHistoryOfTheSessionsNextPacket(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        String session = "import-" + UUID.randomUUID().toString().substring(0, 8);
        try (CognitionRuntime runtime = Logins.start(Settings.local(bootstrap, session,
                dir.resolve("state")))) {
            runtime.awaitRunning(TIMEOUT);

            // As the app (docs/security.md): an import writes session.imports and the app's requests.
            Cli imported = Cli.run(Logins.cli(bootstrap, Principals.APP, "session", "import", "--session", session,
                    "--file", "src/test/resources/session-import/parallel-calls.jsonl"));
            assertThat(imported.exitCode()).as(imported.err()).isZero();
            assertThat(imported.err()).contains("imported 6 messages (2 tool calls, 2 results) into session "
                    + session + " through session.imports");
            Path request = Files.writeString(dir.resolve("request.jsonl"), "{\"request_id\":\"" + session + "-r1\","
                    + "\"session_id\":\"" + session + "\",\"user_prompt\":\"Tag the release then.\","
                    + "\"timestamp\":\"2026-11-22T10:00:00Z\"}\n");
            Cli produce = Cli.run(Logins.cli(bootstrap, Logins.REQUESTS, "produce", "--topic",
                    Topics.COGNITION_REQUESTS, "--file", request.toString()));
            assertThat(produce.exitCode()).as(produce.err()).isZero();

            CognitionPacket packet = Kafka.readUntil(bootstrap, topics.packets,
                    candidate -> candidate.getSessionId().equals(session), seen -> !seen.isEmpty(), TIMEOUT).get(0);
            List<ChatMessage> history = packet.getPayload().getHistory();
            assertThat(history).extracting(ChatMessage::getRole, ChatMessage::getToolCallId).containsExactly(
                    tuple(ChatRole.SYSTEM, null), tuple(ChatRole.USER, null), tuple(ChatRole.ASSISTANT, null),
                    tuple(ChatRole.TOOL, "call_tag"), tuple(ChatRole.TOOL, "call_build"),
                    tuple(ChatRole.ASSISTANT, null));
            assertThat(history.get(2).getToolCalls()).hasSize(2);
        }
    }
}
