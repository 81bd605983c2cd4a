package io.cognitionstreams.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.health.Backlog;
import io.cognitionstreams.health.CatchUp;
import io.cognitionstreams.health.CatchUpLog;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Sessions at scale on the embedded default, as an operator meets it: {@code bin/cognition run --data-dir D}, the
 * launcher's own JVM (its default heap, -XX:+ExitOnOutOfMemoryError, its class-data archive), its broker inside it.
 *
 * <ol>
 *   <li>Warm-up: {@code --warm-sessions} sessions of two turns sent at {@code --warm-rate}, all answered.</li>
 *   <li>Backlog: {@code --backlog-sessions} new sessions of two turns sent at once, as after downtime or a burst of
 *       agents; every request of both phases must then be answered exactly once ({@link Ledger}), and the child's
 *       peak heap (sampled with jstat) and resident memory are reported.</li>
 *   <li>Restart: a clean stop (SIGTERM) and a start on the same directories, timed to the first answer of a new
 *       session. The pipeline's bookkeeping of the backlog (answers into histories, tool results, memories) may still
 *       be under way at the stop: what is left is reported, and a new request waits for it, since a task takes its
 *       inputs in timestamp order. Once the app has caught up, a second clean stop and start times the restart with
 *       nothing left to do.</li>
 *   <li>Kills (unless {@code --no-kills}): SIGKILL of the one process, app and broker, and a start timed to its first
 *       answer, once with the state directory kept and once with it deleted; what each start restored is reported
 *       apart (issue 34's kill-to-first-answer target).</li>
 *   <li>With {@code --sessions}: more new sessions of one turn each until there are that many, sent in bulk, and at
 *       each tenfold size from 1,000, once the app has caught up with the bulk, a probe of {@code --probe} requests
 *       at {@code --probe-rate}, half of them the first turn of a new session, half the next turn of an old one
 *       (whose memory it searches), timed from send to first answer: p50 and p99 per size, with the resident memory
 *       then; last, a clean restart at that size.</li>
 * </ol>
 * Each session's turns are in its own memory scope, so memory grows with the sessions. {@code bin/scale} runs it.
 */
final class ScaleRun {

    /** bin/cognition's heap, which COGNITION_JAVA_OPTS replaces. */
    private static final String LAUNCHER_HEAP = "-Xmx1g";
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
    /** No request answered for this long while some are open: the app stalls (issue 35's zombie). */
    private static final Duration STALL = Duration.ofMinutes(5);
    private static final Workload WORKLOAD = Workload.FULL;
    /** The sessions of the probes' new sessions and of the restart's request: past any run's own. */
    private static final long PROBE_SESSIONS = 10_000_000L;
    private static final long RESTART_SESSION = 9_999_999L;
    /**
     * Offsets left that count as caught up: a few transaction markers per partition. {@link CatchUp#THRESHOLD} would
     * leave seconds of work under a probe.
     */
    private static final long SETTLED = 1_000;
    /** The application id {@code run} takes by default, which starts each of its groups' ids. */
    private static final String APPLICATION_ID = Settings.DEFAULT_APPLICATION_ID;
    /** How the app's RestoreLog names the stores a start restored from the beginning of their changelogs. */
    private static final String FROM_THE_START = "from the start of their changelogs";

    @Command(name = "bin/scale", description = "Sessions at scale on `cognition run` with its default heap: a "
            + "backlog answered exactly once with peak heap and RSS, a restart timed, and optionally latency probes "
            + "up to a million sessions. Exit 0 when every request of the backlog was answered exactly once.")
    static final class Flags {
        @Option(names = "--warm-sessions", defaultValue = "20000", paramLabel = "N",
                description = "Sessions answered before the backlog (default: ${DEFAULT-VALUE}).")
        int warmSessions;

        @Option(names = "--warm-rate", defaultValue = "400", paramLabel = "R",
                description = "Requests per second of the warm-up (default: ${DEFAULT-VALUE}).")
        int warmRate;

        @Option(names = "--backlog-sessions", defaultValue = "80000", paramLabel = "N",
                description = "New sessions of two turns sent at once (default: ${DEFAULT-VALUE}).")
        int backlogSessions;

        @Option(names = "--backlog-timeout", defaultValue = "PT90M",
                description = "How long the backlog may take to be answered (default: ${DEFAULT-VALUE}).")
        Duration backlogTimeout;

        @Option(names = "--sessions", defaultValue = "0", paramLabel = "N",
                description = "Sessions in all for the probes, e.g. 1000000; 0 for none (default: ${DEFAULT-VALUE}).")
        int sessions;

        @Option(names = "--probe", defaultValue = "200", paramLabel = "N",
                description = "Requests of each probe (default: ${DEFAULT-VALUE}).")
        int probe;

        @Option(names = "--probe-rate", defaultValue = "20", paramLabel = "R",
                description = "Requests per second of a probe (default: ${DEFAULT-VALUE}).")
        int probeRate;

        @Option(names = "--port", defaultValue = "0", paramLabel = "P",
                description = "The embedded broker's port, its controller's P+1; 0 for free ports (default: "
                        + "${DEFAULT-VALUE}).")
        int port;

        @Option(names = "--kills", negatable = true, defaultValue = "true", fallbackValue = "true",
                description = "After the clean restarts, kill the process (app and broker) twice and time each start "
                        + "to its first answer: once with the state directory kept, once wiped (default: true).")
        boolean kills;

        @Option(names = "--app-jvm-option", paramLabel = "OPTION", description = "One more option for the app's "
                + "JVM, after the launcher's heap (repeatable), e.g. -XX:StartFlightRecording=filename=/tmp/jfr/ to "
                + "profile each start. Given through COGNITION_JAVA_OPTS, which turns the launcher's class-data "
                + "archive off.")
        List<String> appJvmOptions = new ArrayList<>();

        @Option(names = "--app-arg", paramLabel = "ARG", description = "One more argument for `cognition run` "
                + "(repeatable), e.g. --app-arg=--commit-interval --app-arg=100ms.")
        List<String> appArgs = new ArrayList<>();

        @Option(names = "--dir", paramLabel = "DIR", description = "Where the run's data goes (default: a new "
                + "temporary directory).")
        Path dir;
    }

    private final Flags flags;
    private final PrintStream log;
    private final String run = "scale-" + UUID.randomUUID().toString().substring(0, 8);
    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
    private final List<String> args;
    /** COGNITION_JAVA_OPTS for the launcher: its heap and any --app-jvm-option; none without those. */
    private final Optional<String> javaOptions;
    private final Path appLog;
    /** {@code run}'s state directory under {@code --data-dir}, which a kill with the state wiped deletes. */
    private final Path stateDir;
    private final String bootstrap;
    private final HeapSampler heap = new HeapSampler();
    private ChildApp app;
    /** Where the app's log stood when it was last started. */
    private long lastStartLog;

    private ScaleRun(Flags flags, Path dir, PrintStream log) throws IOException {
        this.flags = flags;
        this.log = log;
        int port = flags.port > 0 ? flags.port : ChildApp.freePort();
        int controllerPort = flags.port > 0 ? flags.port + 1 : ChildApp.freePort();
        this.bootstrap = "127.0.0.1:" + port;
        List<String> run = new ArrayList<>(List.of("--data-dir", dir.resolve("data").toString(), "--port",
                String.valueOf(port), "--controller-port", String.valueOf(controllerPort)));
        run.addAll(flags.appArgs);
        this.args = List.copyOf(run);
        this.appLog = dir.resolve("app.log");
        this.stateDir = dir.resolve("data").resolve("streams");
        this.javaOptions = flags.appJvmOptions.isEmpty() ? Optional.empty()
                : Optional.of(LAUNCHER_HEAP + " " + String.join(" ", flags.appJvmOptions));
    }

    /** Request number {@code n}'s turn of session {@code session}: turns 0 and 1, and 2 for an old session's probe. */
    private static long number(long session, int turn) {
        return session * Workload.TURNS_PER_SESSION + turn;
    }

    private CognitionRequest request(long n) {
        // The session's own memory scope: memory grows with the sessions, as agents' own notes do.
        return CognitionRequest.newBuilder(WORKLOAD.request(run, n, Instant.now())).setMemoryScope(null).build();
    }

    private boolean run() throws Exception {
        long started = System.nanoTime();
        log.printf("scale run %s: %,d warm sessions at %d/s, then %,d at once; app log %s; bin/cognition run %s%s%n",
                run, flags.warmSessions, flags.warmRate, flags.backlogSessions, appLog, String.join(" ", args),
                javaOptions.map(options -> " with COGNITION_JAVA_OPTS=" + options).orElse(""));
        app = ChildApp.launch(appLog, javaOptions, args);
        try {
            app.requireRunning(START_TIMEOUT);
            heap.watch(app.pid());
            long[] warm = LongStream.range(0, flags.warmSessions).flatMap(s -> LongStream.of(number(s, 0),
                    number(s, 1))).toArray();
            long[] backlog = LongStream.range(flags.warmSessions, (long) flags.warmSessions + flags.backlogSessions)
                    .flatMap(s -> LongStream.of(number(s, 0), number(s, 1))).toArray();
            boolean exact;
            try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
                long warmStart = System.nanoTime();
                send(warm, flags.warmRate);
                Map<String, String> warmPrompts = prompts(warm);
                awaitProgress(ledger, warmPrompts, warmStart, flags.backlogTimeout);
                log.printf("warm-up: %,d requests answered in %.0f s (%.0f/s); %s%n", warm.length,
                        seconds(warmStart), warm.length / seconds(warmStart), memory());
                long backlogStart = System.nanoTime();
                send(backlog, 0);
                log.printf("backlog: %,d requests of %,d new sessions sent in %.1f s%n", backlog.length,
                        flags.backlogSessions, seconds(backlogStart));
                Map<String, String> all = prompts(warm);
                all.putAll(prompts(backlog));
                awaitProgress(ledger, all, backlogStart, flags.backlogTimeout);
                log.printf("backlog: answered in %.0f s (%.0f requests/s); %s%n", seconds(backlogStart),
                        backlog.length / seconds(backlogStart), memory());
                Ledger.Verdict verdict = ledger.verify(all);
                log.println(verdict);
                exact = verdict.ok();
            }
            long sessions = (long) flags.warmSessions + flags.backlogSessions;
            long start = restart("restart on the same directories", RESTART_SESSION, Stop.CLEAN);
            awaitCaughtUp(start, "the start");
            // Its last look is up to 10 s after the catch-up.
            Thread.sleep(CatchUpLog.LOOK.toMillis() + 1_000);
            echoCatchUp(lastStartLog);
            start = restart("restart with nothing left to do", RESTART_SESSION + 1, Stop.CLEAN);
            if (flags.kills) {
                awaitCaughtUp(start, "the start");
                start = restart("restart after a kill, state kept", RESTART_SESSION + 3, Stop.KILL);
                awaitCaughtUp(start, "the start");
                start = restart("restart after a kill, state directory wiped", RESTART_SESSION + 4,
                        Stop.KILL_WIPED);
                awaitCaughtUp(start, "the start");
            }
            if (flags.sessions > sessions) {
                probes(sessions);
                restart(String.format("restart at %,d sessions", flags.sessions), RESTART_SESSION + 2, Stop.CLEAN);
            }
            log.printf("done in %.0f s; %s%n", seconds(started), memory());
            return exact;
        } finally {
            heap.stop();
            // A clean stop, so that a later run on the same --dir starts as after any SIGTERM (a kill here made its
            // first start look like a restart after a clean stop that restored every task).
            app.stop();
        }
    }

    /** How a restart ends the running app. */
    private enum Stop {
        /** SIGTERM: the app commits and closes. */
        CLEAN,
        /** SIGKILL of the one process, app and broker: a crash or an OOM kill. */
        KILL,
        /** SIGKILL, then the state directory deleted, as a new machine or an emptied volume starts. */
        KILL_WIPED
    }

    /**
     * Ends the app as {@code stop} says, starts it on the same directories, and times the start to the first answer
     * of a new session's request {@code session}; what the pipeline still had to do at the stop is reported, as it
     * comes before that request. Returns when the start began (System.nanoTime()).
     */
    private long restart(String label, long session, Stop stop) throws Exception {
        log.printf("at the stop, records still to process: %s%n", describe(backlog()));
        long rss = app.peakRssMib();
        long stopping = System.nanoTime();
        if (stop == Stop.CLEAN) {
            int exit = app.stop();
            log.printf("stopped (exit %d) in %.1f s", exit, seconds(stopping));
        } else {
            app.kill();
            log.print("killed");
        }
        if (stop == Stop.KILL_WIPED) {
            long bytes = sizeOf(stateDir);
            Preload.delete(stateDir);
            log.printf(", state directory wiped (%,d MiB)", bytes >> 20);
        }
        log.printf("; that run's peak RSS %,d MiB, %s%n", rss, heap.describe());
        heap.stop();
        long logFrom = Files.size(appLog);
        lastStartLog = logFrom;
        long starting = System.nanoTime();
        app = ChildApp.launch(appLog, javaOptions, args);
        heap.watch(app.pid());
        double written;
        try (Probe probe = new Probe()) {
            // Sent at once: the producer waits for the broker to come back with the app.
            long n = number(session, 0);
            probe.send(n);
            written = seconds(starting);
            while (!probe.answered(n)) {
                if (seconds(starting) > START_TIMEOUT.toSeconds()) {
                    throw new AssertionError("no answer " + START_TIMEOUT + " after the restart; see " + appLog);
                }
                probe.poll(Duration.ofMillis(200));
            }
        }
        log.printf("%s: first answer %.1f s after the start (broker up at %s, request written at %.1f s, every "
                + "capability running at %s)%n", label, seconds(starting), since(starting,
                ChildApp.BROKER_UP), written, since(starting, ChildApp.RUNNING));
        app.requireRunning(START_TIMEOUT);
        String started = ChildApp.logSince(appLog, logFrom);
        RestartRun.Restored restored = RestartRun.Restored.from(started);
        log.printf("  restored %,d records, the longest capability's restore %.1f s%n", restored.records(),
                restored.seconds());
        // After a clean stop every task resumes where it stopped: a store restored from the start of its changelog
        // is a task that lost its place (docs/reliability.md, "What a clean stop guarantees").
        started.lines().filter(line -> line.contains(FROM_THE_START)).forEach(line -> log.println("  " + line));
        return starting;
    }

    private static long sizeOf(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
        }
    }

    /** Until the app's groups are within {@link #SETTLED} of their inputs. */
    private void awaitCaughtUp(long started, String since) throws Exception {
        Backlog left = backlog();
        while (left.total() >= SETTLED) {
            if (seconds(started) > flags.backlogTimeout.toSeconds()) {
                throw new AssertionError("not caught up " + flags.backlogTimeout + " after " + since + ": "
                        + left.describe());
            }
            Thread.sleep(2_000);
            left = backlog();
        }
        log.printf("caught up %.0f s after %s (%s)%n", seconds(started), since, describe(left));
    }

    /** What the app said of the records before its start ({@code CatchUpLog}), in the log from {@code logFrom}. */
    private void echoCatchUp(long logFrom) throws IOException {
        ChildApp.logSince(appLog, logFrom).lines().filter(line -> line.contains("CatchUpLog"))
                .forEach(line -> log.println("  " + line.substring(line.indexOf("CatchUpLog"))));
    }

    private Backlog backlog() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            List<String> groups = admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
                    .map(GroupListing::groupId).filter(id -> id.startsWith(APPLICATION_ID + "-")).toList();
            return CatchUpLog.read(admin, CatchUpLog.named(APPLICATION_ID, groups));
        }
    }

    private static String describe(Backlog backlog) {
        return String.format("%,d records%s", backlog.total(), backlog.total() == 0 ? "" : ": " + backlog.describe());
    }

    /** Bulk sessions up to {@code --sessions}, with a latency probe at every tenfold size from 1,000. */
    private void probes(long have) throws Exception {
        long sessions = have;
        try (Probe probe = new Probe()) {
            for (long size = 1_000; size <= flags.sessions; size *= 10) {
                if (size > sessions) {
                    long[] bulk = LongStream.range(sessions, size).map(s -> number(s, 0)).toArray();
                    long sending = System.nanoTime();
                    send(bulk, 0);
                    awaitConsumed(probe, bulk);
                    log.printf("%,d new sessions answered in %.0f s (%.0f/s); %s%n", bulk.length, seconds(sending),
                            bulk.length / seconds(sending), memory());
                    sessions = size;
                    // A probe behind the bulk's bookkeeping would time the catch-up, not a request at this size.
                    awaitCaughtUp(sending, "the send began");
                }
                log.printf("probe at %,d sessions: %s; %s%n", sessions, probe.measure(sessions, flags.probe,
                        flags.probeRate), memory());
            }
        }
    }

    private void awaitConsumed(Probe probe, long[] numbers) throws InterruptedException {
        long start = System.nanoTime();
        long last = start;
        while (!probe.allAnswered(numbers)) {
            probe.poll(Duration.ofMillis(500));
            if (System.nanoTime() - last > 30_000_000_000L) {
                last = System.nanoTime();
                log.printf("  %,d of %,d answered after %.0f s; %s%n", probe.count(numbers), numbers.length,
                        seconds(start), memory());
            }
        }
    }

    /**
     * Reads the answers until every request of {@code prompts} has its own, saying every 30 s how many are open; fails
     * when the app exits, when no request is answered for {@code STALL}, or after {@code timeout}.
     */
    private void awaitProgress(Ledger ledger, Map<String, String> prompts, long since, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long last = System.nanoTime();
        long moved = System.nanoTime();
        int lastOpen = prompts.size();
        while (true) {
            ledger.catchUp();
            if (!app.alive()) {
                throw new AssertionError("the app exited with code " + app.exitCode() + " after " + (int) seconds(
                        since) + " s of the backlog; see " + appLog);
            }
            if (System.nanoTime() - last > 30_000_000_000L || System.nanoTime() > deadline) {
                last = System.nanoTime();
                int open = ledger.incomplete(prompts).size();
                log.printf("  %.0f s: %,d of %,d requests not answered yet; %s%n", seconds(since), open,
                        prompts.size(), memory());
                if (open == 0) {
                    return;
                }
                if (open < lastOpen) {
                    lastOpen = open;
                    moved = System.nanoTime();
                } else if (System.nanoTime() - moved > STALL.toNanos()) {
                    throw new AssertionError("stalled: " + open + " requests open and none answered for " + STALL
                            + "; see " + appLog);
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(open + " requests not answered after " + timeout + "; see " + appLog);
                }
            } else if (ledger.complete(prompts)) {
                return;
            }
            // Checking 160,000 requests costs CPU the app shares: often enough to time the backlog to a few seconds.
            Thread.sleep(2_000);
        }
    }

    private String memory() {
        return String.format("heap %s, peak RSS %,d MiB", heap.describe(), app.peakRssMib());
    }

    private Map<String, String> prompts(long[] numbers) {
        return Traffic.prompts(WORKLOAD, run, numbers);
    }

    /** Sends {@code numbers} at {@code rate} per second, or as fast as the broker takes them (0). */
    private void send(long[] numbers, int rate) throws InterruptedException {
        if (rate > 0) {
            Traffic traffic = Traffic.start(bootstrap, topics.requests, this::request, numbers, rate, run);
            traffic.await();
            return;
        }
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (long n : numbers) {
                producer.send(record(request(n)));
            }
            producer.flush();
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 600_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private ProducerRecord<byte[], byte[]> record(CognitionRequest request) {
        return new ProducerRecord<>(topics.requests.name(), request.getSessionId().getBytes(StandardCharsets.UTF_8),
                topics.requests.valueSerde().serializer().serialize(topics.requests.name(), request));
    }

    /** When the child printed {@code milestone}, in seconds from {@code start}: "not yet" if it has not. */
    private String since(long start, String milestone) {
        OptionalLong at = app.printed(milestone);
        return at.isPresent() ? String.format("%.1f s", (at.getAsLong() - start) / 1e9) : "not yet";
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /**
     * Reads cli_chat and web_chat read_committed from their end, noting which requests of the run were answered
     * and when the first answer of each probe request arrived.
     */
    private final class Probe implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final KafkaProducer<byte[], byte[]> producer = producer();
        private final BitSet answered = new BitSet();
        private final Map<Long, Long> sentAt = new ConcurrentHashMap<>();
        private final Map<Long, Long> latency = new ConcurrentHashMap<>();
        private final String prefix = run + "-";

        Probe() {
            consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(),
                    new ByteArrayDeserializer());
            List<TopicPartition> partitions = new ArrayList<>();
            for (Channel channel : List.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.MEMORY)) {
                consumer.partitionsFor(Topics.channelTopic(channel)).forEach(info -> partitions.add(
                        new TopicPartition(info.topic(), info.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
        }

        void send(long n) {
            sentAt.putIfAbsent(n, System.nanoTime());
            producer.send(record(request(n)));
            producer.flush();
        }

        void poll(Duration wait) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(wait)) {
                RoutedBlock block = topics.channel(Channel.CLI_CHAT).valueSerde().deserializer()
                        .deserialize(record.topic(), record.value());
                if (block.getRequestId().startsWith(prefix)) {
                    long n = Long.parseLong(block.getRequestId().substring(prefix.length()));
                    answered.set(Math.toIntExact(n));
                    Long sent = sentAt.get(n);
                    if (sent != null) {
                        latency.putIfAbsent(n, System.nanoTime() - sent);
                    }
                }
            }
        }

        boolean answered(long n) {
            return answered.get(Math.toIntExact(n));
        }

        boolean allAnswered(long[] numbers) {
            return count(numbers) == numbers.length;
        }

        long count(long[] numbers) {
            return LongStream.of(numbers).filter(this::answered).count();
        }

        /** Half new sessions' first turns, half old sessions' third: p50 and p99 from send to first answer. */
        String measure(long sessions, int requests, int rate) throws InterruptedException {
            List<Long> numbers = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                numbers.add(i % 2 == 0 ? number(PROBE_SESSIONS + sessions * 10 + i, 0)
                        : number((sessions - 1) * (i + 1) / requests, 2));
            }
            long start = System.nanoTime();
            for (int i = 0; i < numbers.size(); i++) {
                long due = start + i * 1_000_000_000L / rate;
                while (System.nanoTime() < due) {
                    poll(Duration.ofMillis(Math.max(1, (due - System.nanoTime()) / 1_000_000)));
                }
                send(numbers.get(i));
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (numbers.stream().anyMatch(n -> !latency.containsKey(n)) && System.nanoTime() < deadline) {
                poll(Duration.ofMillis(200));
            }
            List<Long> times = numbers.stream().map(latency::get).filter(t -> t != null).sorted().toList();
            if (times.isEmpty()) {
                return "no answer";
            }
            return String.format("%d of %d answered, p50 %.0f ms, p99 %.0f ms, max %.0f ms", times.size(),
                    numbers.size(), times.get(times.size() / 2) / 1e6,
                    times.get(Math.min(times.size() - 1, (int) Math.ceil(times.size() * 0.99) - 1)) / 1e6,
                    times.get(times.size() - 1) / 1e6);
        }

        @Override
        public void close() {
            consumer.close();
            producer.close();
        }
    }

    /** The child's heap in use, sampled every second with jstat: the largest seen, and the largest old generation. */
    private static final class HeapSampler {
        private final AtomicLong peakUsedKib = new AtomicLong();
        private final AtomicLong peakOldKib = new AtomicLong();
        private volatile Process jstat;

        void watch(long pid) throws IOException {
            jstat = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jstat").toString(), "-gc",
                    String.valueOf(pid), "1000").redirectErrorStream(true).start();
            Process watched = jstat;
            Thread reader = new Thread(() -> read(watched), "jstat-" + pid);
            reader.setDaemon(true);
            reader.start();
        }

        private void read(Process process) {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                List<String> header = null;
                String line;
                while ((line = lines.readLine()) != null) {
                    List<String> fields = List.of(line.strip().split("\\s+"));
                    if (fields.contains("EU")) {
                        header = fields;
                    } else if (header != null && fields.size() == header.size()) {
                        double used = 0;
                        for (String column : List.of("S0U", "S1U", "EU", "OU")) {
                            used += Double.parseDouble(fields.get(header.indexOf(column)));
                        }
                        long total = (long) used;
                        long old = (long) Double.parseDouble(fields.get(header.indexOf("OU")));
                        peakUsedKib.accumulateAndGet(total, Math::max);
                        peakOldKib.accumulateAndGet(old, Math::max);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the child is gone; what was sampled stays
            }
        }

        void stop() {
            Process current = jstat;
            if (current != null) {
                current.destroy();
            }
        }

        String describe() {
            return String.format("peak %,d MiB in use (old generation %,d MiB)", peakUsedKib.get() / 1024,
                    peakOldKib.get() / 1024);
        }
    }

    /** {@code bin/scale}. */
    public static void main(String[] args) throws Exception {
        Flags flags = RunArgs.parseOrExit(new Flags(), args);
        Path dir = flags.dir != null ? Files.createDirectories(flags.dir) : Files.createTempDirectory("cognition-scale");
        System.out.printf("%s, %d cores, load %s%n", Instant.now(), Runtime.getRuntime().availableProcessors(),
                Files.readString(Path.of("/proc/loadavg")).strip());
        boolean exact = new ScaleRun(flags, dir, System.out).run();
        System.exit(exact ? 0 : 1);
    }
}
