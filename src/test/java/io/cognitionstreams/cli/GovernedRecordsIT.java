package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.governance.AuditTrail;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.topics.Topics;

/**
 * Personas and identity through the commands an operator uses, against a running instance. A broker of its own:
 * the identity written here would otherwise reach every later test's packets.
 */
@ExtendWith(IsolatedBroker.class)
class GovernedRecordsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void loadedAndBuiltInPersonasAreListedAndUsedAndAnUnknownOneIsADeadLetter(EmbeddedKafkaBroker broker,
                                                                             @TempDir Path dir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        Path personas = Files.writeString(dir.resolve("personas.jsonl"), "{\"name\":\"mentor\",\"version\":"
                + "\"1.1.0\",\"role\":\"You are a patient mentor.\",\"constraints\":[\"Never mock a question.\"]}\n");
        // Loaded before the app starts, so its global store holds the persona before the first request.
        Cli load = Cli.run("persona", "load", "--file", personas.toString(), "--bootstrap-servers", bootstrap);
        assertThat(load.exitCode()).as(load.err()).isZero();
        assertThat(load.err()).contains("loaded 1 persona from " + personas + " into cognition.personas");

        try (CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, "personas",
                dir.resolve("state")))) {
            runtime.awaitRunning(TIMEOUT);

            Cli list = Cli.run("persona", "list", "--bootstrap-servers", bootstrap);
            assertThat(list.exitCode()).as(list.err()).isZero();
            assertThat(list.out().lines().map(line -> line.split("\\s+")[0]))
                    .as("the built-ins `run` shipped, and the loaded one")
                    .containsExactly("architect", "assistant", "developer", "mentor", "researcher");
            assertThat(list.out()).contains("mentor           1.1.0", "<role>You are a patient mentor.</role>");

            Path requests = Files.writeString(dir.resolve("requests.jsonl"), String.join("\n",
                    request("r1", "mentor"), request("r2", "mentr"), request("r3", "architect")) + "\n");
            Cli produce = Cli.run("produce", "--topic", Topics.COGNITION_REQUESTS, "--file", requests.toString(),
                    "--bootstrap-servers", bootstrap);
            assertThat(produce.exitCode()).as(produce.err()).isZero();

            List<CognitionPacket> packets = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getSessionId().equals("personas"), seen -> seen.size() == 2, TIMEOUT);
            assertThat(packets).extracting(packet -> packet.getHeader().getPersona()).containsExactly(
                    "<role>You are a patient mentor.</role>\nConstraints:\n- Never mock a question.",
                    "<role>You are a master software architect.</role>");
            List<DeadLetter> letters = Kafka.readAll(bootstrap, topics.deadLetters,
                    letter -> letter.getSourceTopic().equals(Topics.COGNITION_REQUESTS));
            assertThat(letters).singleElement().satisfies(letter -> assertThat(letter.getReason()).contains(
                    "unknown persona 'mentr'; known: [architect, assistant, developer, mentor, researcher]"));
            // The audit names who loaded it, as the CLI's client settings say: no SASL here, so Kafka's anonymous.
            PipelineEvent loaded = Kafka.readUntil(bootstrap, topics.events, event -> event.getType()
                    .equals(AuditTrail.EVENT) && event.getMessage().startsWith("cognition.personas mentor "),
                    seen -> !seen.isEmpty(), TIMEOUT).get(0);
            assertThat(loaded.getMessage()).isEqualTo("cognition.personas mentor added at version 1.1.0, written by "
                    + "User:ANONYMOUS (os user " + System.getProperty("user.name") + ")");
            assertThat(loaded.getAttributes()).containsEntry("written_by",
                    "User:ANONYMOUS (os user " + System.getProperty("user.name") + ")");
        }
    }

    @Test
    void identitySetWritesAGovernedVersion(EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        Path text = Files.writeString(dir.resolve("identity.txt"), "I am Gaia.\nNever run shell commands unasked.\n");

        Cli set = Cli.run("identity", "set", "--file", text.toString(), "--author", "azrael", "--version", "2",
                "--reason", "tighter shell rule", "--bootstrap-servers", bootstrap);

        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.err()).contains("identity version 2 by [azrael] written to cognition.identity");
        Identity written = Kafka.readUntil(bootstrap, topics.identity, identity -> true, seen -> !seen.isEmpty(),
                TIMEOUT).get(0);
        assertThat(written.getText()).isEqualTo("I am Gaia.\nNever run shell commands unasked.");
        assertThat(written.getReason()).isEqualTo("tighter shell rule");
        assertThat(IdentityGovernance.refuse(IdentityGovernance.KEY, written)).isEmpty();
    }

    private static String request(String id, String persona) {
        return "{\"request_id\":\"" + id + "\",\"session_id\":\"personas\",\"user_prompt\":\"Plan the deploy.\","
                + "\"persona\":\"" + persona + "\",\"timestamp\":\"2026-11-22T10:00:00Z\"}";
    }
}
