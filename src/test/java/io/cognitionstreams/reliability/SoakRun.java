package io.cognitionstreams.reliability;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The soak: malformed records of every kind ({@link Malformed}) mixed with valid requests, while the app runs.
 * Afterwards every malformed record must have exactly one dead letter with its reason, every valid request its
 * answer exactly once, and every capability must still be running. Two 10 MB values show both sides of Kafka's
 * record limit: refused at produce time under the broker's default max.message.bytes (the producer gets the
 * error, the pipeline never sees the record), and dead-lettered once the topic allows them. {@link SoakIT} runs a
 * short form; {@code bin/soak} runs {@link #main} on its own broker.
 */
final class SoakRun {

    static final int HUGE_BYTES = 10 * 1024 * 1024;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    record Options(int malformed, int valid, int rate, long seed) {
    }

    /** What a refused record must get: {@code label} names the kind in reports. */
    private record Expectation(String label, ErrorKind kind, String reason, int valueSize) {
    }

    /**
     * @param hugeRefusedAtProduce whether the broker refused the 10 MB value under its default limit
     * @param perKind              letters checked per kind
     */
    record Report(Ledger.Verdict valid, Map<String, Integer> perKind, boolean hugeRefusedAtProduce,
                  List<String> problems, boolean stillRunning, Duration elapsed) {
        boolean ok() {
            return valid.ok() && problems.isEmpty() && hugeRefusedAtProduce && stillRunning;
        }

        @Override
        public String toString() {
            return "valid: " + valid + "; malformed: " + perKind.values().stream().mapToInt(Integer::intValue).sum()
                    + " " + perKind + "; 10 MB refused at produce: " + hugeRefusedAtProduce + "; still running: "
                    + stillRunning + (problems.isEmpty() ? "" : "; " + problems.size() + " problems, first: "
                    + problems.subList(0, Math.min(10, problems.size())));
        }
    }

    private SoakRun() {
    }

    static Report run(String bootstrap, Path workDir, Options options, PrintStream log) throws Exception {
        long started = System.nanoTime();
        String run = "soak-" + UUID.randomUUID().toString().substring(0, 8);
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        Malformed.Samples samples = new Malformed.Samples(topics, run);
        Random random = new Random(options.seed());
        log.printf("soak %s: %d malformed and %d valid records at %d/s, seed %d%n", run, options.malformed(),
                options.valid(), options.rate(), options.seed());
        Map<String, Expectation> expected = new LinkedHashMap<>();
        List<String> validKeys = new ArrayList<>();
        Map<String, String> prompts = new LinkedHashMap<>();
        CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, run, workDir.resolve("state")));
        try (Ledger ledger = new Ledger(bootstrap, topics, run);
             KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            runtime.awaitRunning(TIMEOUT);
            byte[] hugeGarbage = new byte[HUGE_BYTES];
            random.nextBytes(hugeGarbage);
            hugeGarbage[0] = 'x';
            boolean refused = refusedAsTooLarge(producer, new ProducerRecord<>(Topics.COGNITION_REQUESTS,
                    utf8(run), hugeGarbage));
            allowHugeRequests(bootstrap);
            expected.put(key(producer.send(new ProducerRecord<>(Topics.COGNITION_REQUESTS, utf8(run), hugeGarbage))
                    .get()), new Expectation("HUGE_GARBAGE", ErrorKind.DESERIALIZATION,
                    "not an Avro single-object encoded", HUGE_BYTES));
            byte[] hugePrompt = samples.request(options.malformed(), "y".repeat(HUGE_BYTES));
            expected.put(key(producer.send(new ProducerRecord<>(Topics.COGNITION_REQUESTS, utf8(run), hugePrompt))
                    .get()), new Expectation("HUGE_PROMPT", ErrorKind.VALIDATION, "over the limit", hugePrompt.length));

            sendMixed(producer, samples, run, options, random, expected, validKeys, prompts);
            ledger.awaitComplete(prompts, TIMEOUT);
            awaitLetters(ledger, expected.keySet());
            boolean running = BrokerRestartRun.allRunningWithin(runtime, Duration.ofSeconds(60));
            runtime.close();
            ledger.catchUp();

            List<String> problems = new ArrayList<>();
            Map<String, Integer> perKind = new LinkedHashMap<>();
            expected.forEach((key, expectation) -> {
                check(ledger, key, expectation, problems);
                perKind.merge(expectation.label(), 1, Integer::sum);
            });
            validKeys.stream().filter(key -> ledger.letters(key) > 0)
                    .forEach(key -> problems.add(key + ": a valid request was dead-lettered"));
            for (long n = 0; n <= options.malformed(); n++) {
                if (ledger.packets(samples.requestId(n)) > 0) {
                    problems.add(samples.requestId(n) + ": a malformed request got a packet");
                }
            }
            Report report = new Report(ledger.verify(prompts), perKind, refused, problems, running,
                    Duration.ofNanos(System.nanoTime() - started));
            log.printf("%s in %d s%n", report, report.elapsed().toSeconds());
            return report;
        } finally {
            runtime.close();
        }
    }

    /** Malformed and valid records in a random order, paced; kinds of malformed records taken in turn. */
    private static void sendMixed(KafkaProducer<byte[], byte[]> producer, Malformed.Samples samples, String run,
                                  Options options, Random random, Map<String, Expectation> expected,
                                  List<String> validKeys, Map<String, String> prompts) throws Exception {
        Map<Future<RecordMetadata>, Expectation> malformedSends = new LinkedHashMap<>();
        List<Future<RecordMetadata>> validSends = new ArrayList<>();
        Malformed[] kinds = Malformed.values();
        long bad = 0;
        long good = 0;
        long start = System.nanoTime();
        for (long i = 0; bad < options.malformed() || good < options.valid(); i++) {
            long wait = start + i * 1_000_000_000L / options.rate() - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            boolean sendBad = good >= options.valid() || bad < options.malformed()
                    && random.nextInt(options.malformed() + options.valid()) < options.malformed();
            if (sendBad) {
                Malformed kind = kinds[(int) (bad % kinds.length)];
                malformedSends.put(producer.send(new ProducerRecord<>(kind.topic(), utf8(samples.session(bad)),
                        kind.value(samples, bad, random))), new Expectation(kind.name(), kind.kind(), kind.reason(), -1));
                bad++;
            } else {
                var request = Workload.NO_MEMORY.request(run, good, Instant.now());
                prompts.put(request.getRequestId(), request.getUserPrompt());
                validSends.add(producer.send(new ProducerRecord<>(Topics.COGNITION_REQUESTS,
                        utf8(request.getSessionId()), samples.requests(request))));
                good++;
            }
        }
        for (Map.Entry<Future<RecordMetadata>, Expectation> send : malformedSends.entrySet()) {
            expected.put(key(send.getKey().get()), send.getValue());
        }
        for (Future<RecordMetadata> send : validSends) {
            validKeys.add(key(send.get()));
        }
    }

    private static void check(Ledger ledger, String key, Expectation expectation, List<String> problems) {
        int count = ledger.letters(key);
        if (count != 1) {
            problems.add(key + " (" + expectation.label() + "): " + count + " dead letters");
            return;
        }
        DeadLetter letter = ledger.letter(key).orElseThrow();
        if (letter.getErrorKind() != expectation.kind() || !letter.getReason().contains(expectation.reason())) {
            problems.add(key + " (" + expectation.label() + "): " + letter.getErrorKind() + " " + letter.getReason());
        }
        if (expectation.valueSize() >= 0 && (letter.getValueSize() != expectation.valueSize()
                || letter.getValue().remaining() != DeadLetters.MAX_KEPT_BYTES)) {
            problems.add(key + " (" + expectation.label() + "): value size " + letter.getValueSize() + ", kept "
                    + letter.getValue().remaining());
        }
    }

    private static void awaitLetters(Ledger ledger, java.util.Set<String> keys) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (keys.stream().anyMatch(key -> ledger.letters(key) == 0)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no dead letter after " + TIMEOUT + " for "
                        + keys.stream().filter(key -> ledger.letters(key) == 0).limit(10).toList());
            }
            Thread.sleep(500);
            ledger.catchUp();
        }
    }

    private static boolean refusedAsTooLarge(KafkaProducer<byte[], byte[]> producer,
                                             ProducerRecord<byte[], byte[]> record) throws InterruptedException {
        try {
            producer.send(record).get();
            return false;
        } catch (ExecutionException e) {
            return e.getCause() instanceof RecordTooLargeException;
        }
    }

    /** What an operator does to accept large values: raise the topic's limit (the producer's is raised here). */
    private static void allowHugeRequests(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            ConfigResource requests = new ConfigResource(ConfigResource.Type.TOPIC, Topics.COGNITION_REQUESTS);
            admin.incrementalAlterConfigs(Map.of(requests, List.of(new AlterConfigOp(new ConfigEntry(
                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG, String.valueOf(2 * HUGE_BYTES)),
                    AlterConfigOp.OpType.SET)))).all().get(60, TimeUnit.SECONDS);
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 * HUGE_BYTES,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 8L * HUGE_BYTES),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static String key(RecordMetadata metadata) {
        return DeadLetters.key(metadata.topic(), metadata.partition(), metadata.offset());
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Command(name = "bin/soak", description = "Malformed records of every kind mixed with valid requests while the "
            + "app runs; exit 0 when each malformed record has one dead letter and each request one answer.")
    static final class Flags {

        @Option(names = "--malformed", paramLabel = "N", defaultValue = "10000",
                description = "Malformed records to send (default: ${DEFAULT-VALUE}).")
        int malformed;

        @Option(names = "--valid", paramLabel = "N", defaultValue = "10000",
                description = "Valid requests to send among them (default: ${DEFAULT-VALUE}).")
        int valid;

        @Option(names = "--rate", paramLabel = "R", defaultValue = "500",
                description = "Records per second (default: ${DEFAULT-VALUE}).")
        int rate;

        @Mixin
        RunArgs.Seed seed;

        Options options() {
            return new Options(malformed, valid, rate, seed.value);
        }
    }

    /** {@code bin/soak}: the long form, on its own broker. */
    public static void main(String[] args) throws Exception {
        Options options = RunArgs.parseOrExit(new Flags(), args).options();
        Path workDir = Files.createTempDirectory("cognition-soak");
        Report report;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerSettings(workDir.resolve("kafka"), 0,
                0, Duration.ofSeconds(60)))) {
            report = run(broker.bootstrapServers(), workDir, options, System.out);
        }
        System.exit(report.ok() ? 0 : 1);
    }
}
