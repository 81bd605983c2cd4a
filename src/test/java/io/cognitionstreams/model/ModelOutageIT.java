package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.load.ChatEndpointDouble;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topics;

/**
 * Outages stall, they do not lose, as a user meets them: `cognition run` against an OpenAI-compatible endpoint
 * that goes away (nothing listens on its port) while requests keep coming, and comes back. Every request is
 * answered once, in order per session, and none is dead-lettered. The outage lasts 10 s here (the breaker opens,
 * probes and reopens three times), within the suite's time; {@code -Dcognition.outage.seconds=60} runs the issue's
 * minute.
 */
class ModelOutageIT {

    private static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("cognition.outage.seconds", 10));
    private static final int SESSIONS = 20;
    private static final int TURNS = 3;

    @TempDir
    Path dir;

    @Test
    void everyRequestSentWhileTheEndpointIsDownIsAnsweredOnceWhenItIsBack() throws Exception {
        String run = "outage-" + UUID.randomUUID().toString().substring(0, 8);
        int port = Cli.freePort();
        String bootstrap = "127.0.0.1:" + port;
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        try (ChatEndpointDouble endpoint = ChatEndpointDouble.start(0, Duration.ofMillis(50))) {
            Process app = Cli.start(out, err, "run", "--data-dir", dir.resolve("data").toString(), "--port",
                    String.valueOf(port), "--controller-port", String.valueOf(Cli.freePort()), "--model-endpoint",
                    endpoint.baseUrl(), "--model-timeout", "5s", "--model-concurrency", "8");
            try (KafkaProducer<String, CognitionRequest> agent = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                    topics.requests.keySerde().serializer(), topics.requests.valueSerde().serializer())) {
                Cli.awaitRunning(app, err);
                // First turn of every session with the endpoint up; it answers.
                send(agent, topics, run, 0);
                Kafka.readUntil(bootstrap, topics.llmOutputs, output -> output.getSessionId().startsWith(run),
                        seen -> seen.size() >= SESSIONS, Duration.ofMinutes(2));

                endpoint.down();
                long downAt = System.nanoTime();
                // The other turns arrive during the outage, a turn of every session at a time.
                for (int turn = 1; turn < TURNS; turn++) {
                    Thread.sleep(OUTAGE.toMillis() / TURNS);
                    send(agent, topics, run, turn);
                }
                Thread.sleep(Math.max(0, OUTAGE.toMillis() - Duration.ofNanos(System.nanoTime() - downAt)
                        .toMillis()));
                assertThat(app.isAlive()).isTrue();
                assertThat(Kafka.readAll(bootstrap, topics.llmOutputs, output -> output.getSessionId()
                        .startsWith(run))).as("nothing answered while the endpoint is down").hasSize(SESSIONS);
                endpoint.up();

                Kafka.readUntil(bootstrap, topics.llmOutputs, output -> output.getSessionId().startsWith(run),
                        seen -> seen.size() >= SESSIONS * TURNS, Duration.ofMinutes(2));
                Thread.sleep(1000); // long enough for an answer written twice to show
                List<LlmOutput> outputs = Kafka.readAll(bootstrap, topics.llmOutputs,
                        output -> output.getSessionId().startsWith(run));
                assertThat(outputs).as("every request answered once").hasSize(SESSIONS * TURNS)
                        .extracting(LlmOutput::getRequestId).doesNotHaveDuplicates();
                Map<String, List<String>> bySession = outputs.stream().collect(Collectors.groupingBy(
                        LlmOutput::getSessionId, Collectors.mapping(LlmOutput::getRequestId, Collectors.toList())));
                assertThat(bySession).hasSize(SESSIONS).allSatisfy((session, requests) -> assertThat(requests)
                        .as("answered in request order").containsExactly(session + "-r0", session + "-r1",
                                session + "-r2"));
                List<DeadLetter> letters = Kafka.readAll(bootstrap, topics.deadLetters, letter ->
                        new String(letter.getKey().array(), StandardCharsets.UTF_8).contains(Topics.COGNITION_PACKETS)
                                || letter.getReason().contains(run));
                assertThat(letters).as("no packet dead-lettered").isEmpty();
                String log = Files.readString(err, StandardCharsets.UTF_8);
                // The test classpath's logging shows warnings only: the breaker's INFO on closing is not there.
                assertThat(log).contains("circuit open after", "connection refused");
            } finally {
                app.destroy();
                assertThat(app.waitFor(60, TimeUnit.SECONDS)).as("Ctrl-C stops it").isTrue();
            }
        }
    }

    private static void send(KafkaProducer<String, CognitionRequest> agent, Topics topics, String run, int turn) {
        for (int session = 0; session < SESSIONS; session++) {
            String id = run + "-s" + session;
            agent.send(new ProducerRecord<>(topics.requests.name(), id, Records.request(id,
                    "Summarize the notes of meeting " + session + ", part " + turn + ".")
                    .setRequestId(id + "-r" + turn).setTimestamp(Instant.now()).build()));
        }
        agent.flush();
    }
}
