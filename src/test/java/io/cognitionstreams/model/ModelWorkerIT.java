package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.app.Pipeline;
import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/**
 * The model worker on a real broker: answers, many sessions at once and each in order, waits out passing failures,
 * and dead-letters what can never be answered.
 */
@ExtendWith(SharedBroker.class)
class ModelWorkerIT {

    @Test
    void answersPacketsRetriesPassingFailuresAndDeadLettersTheRest(EmbeddedKafkaBroker broker) throws Exception {
        String bootstrap = broker.bootstrapServers();
        Topics topics = Drivers.topics();
        String run = UUID.randomUUID().toString().substring(0, 8);
        // The test is the app here: it provisions, feeds the worker packets and runs it, as User:app when secured.
        String app = "it-" + run;
        Logins.allowApp(bootstrap, app);
        Map<String, Object> asApp = Logins.as(bootstrap, Principals.APP);
        try (Admin admin = Admin.create(asApp)) {
            TopicProvisioner.ensure(admin, topics, 3, (short) 1);
        }
        AtomicInteger flakyCalls = new AtomicInteger();
        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
        Map<String, AtomicInteger> atOnce = new ConcurrentHashMap<>();
        List<String> overlaps = new CopyOnWriteArrayList<>();
        ModelClient endpoint = call -> {
            String user = call.prompt().get(call.prompt().size() - 1).content();
            if (user.startsWith("refuse")) {
                return CompletableFuture.failedFuture(
                        new ModelClient.ModelException("HTTP 400: prompt refused", false, null));
            }
            if (user.startsWith("flaky") && flakyCalls.incrementAndGet() < 3) {
                return CompletableFuture.failedFuture(new ModelClient.ModelException("HTTP 503", true, null));
            }
            // Answers come later and out of order; a session's calls must never overlap.
            String session = user.split(" ")[0];
            if (atOnce.computeIfAbsent(session, s -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.add(user);
            }
            CompletableFuture<ModelClient.Completion> answer = new CompletableFuture<>();
            clock.schedule(() -> {
                atOnce.get(session).decrementAndGet();
                answer.complete(new ModelClient.Completion("RESPONSE: answer to " + user, "test-model", 5, 4));
            }, ThreadLocalRandom.current().nextInt(1, 30), TimeUnit.MILLISECONDS);
            return answer;
        };
        // As the runtime runs it: outages and 5xx are the resilient client's to wait out, not the worker's.
        ResilientModel model = new ResilientModel("test", endpoint, new ResilientModel.Policy(16,
                Duration.ofMillis(20), Duration.ofMillis(200), 5, Duration.ofMillis(100), Duration.ofSeconds(1)));
        ModelWorker worker = new ModelWorker(asApp, app + "-model-worker", "it", topics, model, 16,
                Duration.ofSeconds(15), AnswerStreams.OFF);
        Thread thread = new Thread(worker, "model-worker-it");
        thread.start();
        try {
            var assembler = Pipeline.Parts.defaults().assembler();
            String ok = "ok-" + run;
            String flaky = "flaky-" + run;
            String refused = "refuse-" + run;
            for (String session : List.of(ok, flaky, refused)) {
                CognitionPacket packet = assembler.assemble(Records.input(Records.request(session, session + " please").build())).packet();
                Kafka.send(asApp, topics.packets, session, packet);
            }
            List<String> ordered = new ArrayList<>();
            try (KafkaProducer<String, CognitionPacket> producer = new KafkaProducer<>(asApp,
                    topics.packets.keySerde().serializer(), topics.packets.valueSerde().serializer())) {
                for (int turn = 0; turn < 4; turn++) {
                    for (int n = 0; n < 8; n++) {
                        String session = "order" + n + "-" + run;
                        producer.send(new ProducerRecord<>(topics.packets.name(), session, assembler.assemble(
                                Records.input(Records.request(session, session + " turn " + turn).build())).packet()));
                        ordered.add(session);
                    }
                }
            }
            var garbage = Kafka.send(asApp, topics.packets.name(), "junk-" + run,
                    "junk".getBytes(StandardCharsets.UTF_8));

            List<LlmOutput> outputs = Kafka.readUntil(bootstrap, topics.llmOutputs,
                    output -> Set.of(ok, flaky).contains(output.getSessionId()), seen -> seen.size() >= 2,
                    Duration.ofSeconds(60));
            assertThat(outputs).extracting(LlmOutput::getText).containsExactlyInAnyOrder(
                    "RESPONSE: answer to " + ok + " please", "RESPONSE: answer to " + flaky + " please");
            assertThat(outputs).allSatisfy(output -> {
                assertThat(output.getModel()).isEqualTo("test-model");
                assertThat(output.getOutputId()).isEqualTo(output.getPacketId() + "-out");
            });
            assertThat(flakyCalls).hasValue(3);

            List<LlmOutput> turns = Kafka.readUntil(bootstrap, topics.llmOutputs,
                    output -> output.getSessionId().startsWith("order") && output.getSessionId().endsWith(run),
                    seen -> seen.size() >= ordered.size(), Duration.ofSeconds(60));
            for (int n = 0; n < 8; n++) {
                String session = "order" + n + "-" + run;
                assertThat(turns.stream().filter(output -> output.getSessionId().equals(session))
                        .map(LlmOutput::getText)).as("a session's answers in request order").containsExactly(
                        "RESPONSE: answer to " + session + " turn 0", "RESPONSE: answer to " + session + " turn 1",
                        "RESPONSE: answer to " + session + " turn 2", "RESPONSE: answer to " + session + " turn 3");
            }
            assertThat(overlaps).as("one call at a time per session").isEmpty();

            List<DeadLetter> letters = Kafka.readUntil(bootstrap, topics.deadLetters,
                    letter -> letter.getSourceTopic().equals(Topics.COGNITION_PACKETS)
                            && (new String(letter.getKey().array(), StandardCharsets.UTF_8).endsWith(run)),
                    seen -> seen.size() >= 2, Duration.ofSeconds(60));
            assertThat(letters).extracting(DeadLetter::getErrorKind)
                    .containsExactlyInAnyOrder(ErrorKind.PROCESSING, ErrorKind.DESERIALIZATION);
            assertThat(letters).anySatisfy(letter -> {
                assertThat(letter.getReason()).isEqualTo("HTTP 400: prompt refused");
                assertThat(letter.getProcessor()).isEqualTo("model-worker");
            });
            assertThat(letters).anySatisfy(letter -> assertThat(DeadLetters.key(letter.getSourceTopic(),
                    letter.getSourcePartition(), letter.getSourceOffset()))
                    .isEqualTo(DeadLetters.key(garbage.topic(), garbage.partition(), garbage.offset())));
        } finally {
            worker.close();
            thread.join(10_000);
            model.close();
            clock.shutdownNow();
        }
    }
}
