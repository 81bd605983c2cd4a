package io.cognitionstreams.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.topics.Topics;

/**
 * State at scale before a restart is measured: many sessions of two requests each, every session in its own memory
 * scope, its first turn one that episodic memory remembers (a deploy plan or a research answer, which carry
 * THOUGHT_SEED and VERIFY blocks) and its second one that it does not. So the assembly holds each session's state and
 * history and its memories, and a restart has that much to find again or restore.
 */
final class Preload {

    private static final int TURNS = 2;
    private static final Duration PROGRESS = Duration.ofSeconds(30);

    private Preload() {
    }

    /** Sends {@code sessions} sessions' requests and waits until every one is answered, saying how it goes. */
    static void sessions(String bootstrap, Topics topics, int sessions, PrintStream log) throws Exception {
        String run = "preload-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> prompts = new LinkedHashMap<>();
        long started = System.nanoTime();
        log.printf("preloading %,d sessions of %d requests (run %s)%n", sessions, TURNS, run);
        AtomicReference<Exception> failed = new AtomicReference<>();
        try (Ledger ledger = new Ledger(bootstrap, topics, run);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                     ProducerConfig.ACKS_CONFIG, "all",
                     ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                     ProducerConfig.LINGER_MS_CONFIG, 20,
                     ProducerConfig.MAX_BLOCK_MS_CONFIG, 600_000,
                     ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000), new ByteArraySerializer(),
                     new ByteArraySerializer())) {
            for (long n = 0; n < (long) sessions * TURNS; n++) {
                CognitionRequest request = CognitionRequest.newBuilder(Workload.FULL.request(run, n, Instant.now()))
                        .setSessionId(run + "-s" + n / TURNS)
                        .setMemoryScope(null)
                        .build();
                prompts.put(request.getRequestId(), request.getUserPrompt());
                producer.send(new ProducerRecord<>(topics.requests.name(),
                        request.getSessionId().getBytes(StandardCharsets.UTF_8),
                        topics.requests.valueSerde().serializer().serialize(topics.requests.name(), request)),
                        (meta, error) -> {
                            if (error != null) {
                                failed.compareAndSet(null, error);
                            }
                        });
            }
            producer.flush();
            if (failed.get() != null) {
                throw new IllegalStateException("sending the preload failed", failed.get());
            }
            log.printf("preload sent in %.0f s; waiting for every answer%n", (System.nanoTime() - started) / 1e9);
            while (true) {
                try {
                    ledger.awaitComplete(prompts, PROGRESS);
                    break;
                } catch (AssertionError notYet) {
                    log.printf("preload at %.0f s: %,d of %,d requests not answered yet%n",
                            (System.nanoTime() - started) / 1e9, ledger.incomplete(prompts).size(), prompts.size());
                }
            }
        }
        log.printf("preload of %,d sessions answered in %.0f s%n", sessions, (System.nanoTime() - started) / 1e9);
    }

    /**
     * Deletes the state stores of every capability under {@code stateDir}, as a lost disk would, but keeps what
     * names the instance (the app's instance id and each Kafka Streams process id), so that what a restart then
     * pays is the restore, not also a new member's wait for the old one's session to end.
     */
    static void wipeStores(Path stateDir) throws IOException {
        try (Stream<Path> applications = Files.list(stateDir)) {
            for (Path application : applications.filter(Files::isDirectory).toList()) {
                try (Stream<Path> entries = Files.list(application)) {
                    for (Path entry : entries.filter(Files::isDirectory).toList()) {
                        delete(entry);
                    }
                }
            }
        }
    }

    /** Deletes {@code dir} and everything under it. */
    static void delete(Path dir) throws IOException {
        try (Stream<Path> tree = Files.walk(dir)) {
            for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
