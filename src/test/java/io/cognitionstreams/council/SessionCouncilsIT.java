package io.cognitionstreams.council;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpServer;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * Two councils on one pipeline: each session names its council on its first request only, its model interrupts
 * itself three times, and the escalation reaches that session's council, keyed by it on council.messages, where the
 * council takes it and shows it for Prime. A third session names none and escalates to {@code default}. The model is
 * a chat-completions endpoint on loopback that always interrupts (no bundled transcript does three in a row). On a
 * broker of its own, as AutoFixIT: the whole app would first read through every earlier test's records. The
 * councils require signatures, so routing's escalations are taken only because the app signs them on their way out.
 */
@ExtendWith(IsolatedBroker.class)
class SessionCouncilsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String INTERRUPTS = "INTERRUPT: the disk is full.\nINTERRUPT: the retry failed too.\n"
            + "INTERRUPT: stopping until someone looks.";

    @Test
    void eachSessionsEscalationReachesItsOwnCouncil(EmbeddedKafkaBroker broker, @TempDir Path stateDir)
            throws Exception {
        HttpServer model = alwaysInterrupting();
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String billing = "billing-" + run;
        String platform = "platform-" + run;
        // Session -> the council its escalation must reach. A HashMap: council ticks have no session to look up.
        Map<String, String> councilOf = new HashMap<>(Map.of("a-" + run, billing, "b-" + run, platform,
                "c-" + run, CouncilIds.DEFAULT));
        Settings settings = Settings.local(bootstrap, "it-" + run, stateDir).withModel(new Settings.ModelSettings(
                Optional.of("http://127.0.0.1:" + model.getAddress().getPort() + "/v1"), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(10), 1)).withCouncil(CouncilSettings.defaults()
                .withSignatures(CouncilSettings.Signatures.REQUIRED, Duration.ofMinutes(5)));
        try (CognitionRuntime runtime = CognitionRuntime.start(settings)) {
            runtime.awaitRunning(TIMEOUT);
            Topics topics = runtime.topics();
            // Observer turns: no stage contract, so AutoFix adds no retries or escalations of its own.
            for (String session : councilOf.keySet()) {
                String council = councilOf.get(session);
                Kafka.send(bootstrap, topics.requests, session, Records.request(session, "Watch the nightly job.")
                        .setTaskInstructionKey("observer")
                        .setCouncilId(council.equals(CouncilIds.DEFAULT) ? null : council)
                        .setTimestamp(Instant.now()).build());
            }

            Kafka.readUntil(bootstrap, topics.councilMessages,
                    message -> councilOf.containsKey(message.getSessionId()),
                    seen -> seen.size() == councilOf.size(), TIMEOUT);
            List<ConsumerRecord<byte[], byte[]>> raw = Kafka.readRaw(bootstrap, Topics.COUNCIL_MESSAGES);
            List<Map.Entry<String, CouncilMessage>> escalations = raw.stream()
                    .map(record -> Map.entry(new String(record.key(), StandardCharsets.UTF_8),
                            topics.councilMessages.valueSerde().deserializer()
                                    .deserialize(Topics.COUNCIL_MESSAGES, record.value())))
                    .filter(entry -> councilOf.containsKey(entry.getValue().getSessionId()))
                    .toList();
            assertThat(escalations).extracting(entry -> entry.getValue().getSessionId(), Map.Entry::getKey,
                            entry -> entry.getValue().getCouncilId(), entry -> entry.getValue().getSender())
                    .containsExactlyInAnyOrder(
                            tuple("a-" + run, billing, billing, OutputRouter.SENDER),
                            tuple("b-" + run, platform, platform, OutputRouter.SENDER),
                            tuple("c-" + run, CouncilIds.DEFAULT, CouncilIds.DEFAULT, OutputRouter.SENDER));

            assertThat(escalations).allSatisfy(entry -> assertThat(entry.getValue().getSigningKey()).isNotNull());
            // Each council took its own: a mis-keyed or unsigned one would have been dead-lettered instead of shown.
            List<RoutedBlock> shown = Kafka.readUntil(bootstrap, topics.channel(Channel.COUNCIL_CHAT),
                    block -> councilOf.containsKey(block.getSessionId()) && block.getText().startsWith("ESCALATION"),
                    seen -> seen.size() == councilOf.size(), TIMEOUT);
            assertThat(shown).allSatisfy(block -> assertThat(block.getText())
                    .contains("(council " + councilOf.get(block.getSessionId()) + ", risk HIGH)"));
        } finally {
            model.stop(0);
        }
    }

    /** A chat-completions endpoint whose every answer is three INTERRUPT blocks. */
    private static HttpServer alwaysInterrupting() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String content = INTERRUPTS.replace("\n", "\\n");
        byte[] answer = ("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"" + content + "\"}}],"
                + "\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20}}").getBytes(StandardCharsets.UTF_8);
        server.createContext("/v1/chat/completions", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        return server;
    }
}
