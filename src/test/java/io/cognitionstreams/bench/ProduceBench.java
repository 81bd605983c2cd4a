package io.cognitionstreams.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * `cognition produce --file` against Kafka's own console producer on the same file of valid cognition.requests
 * lines, each a fresh JVM as a user runs it, on an embedded broker started here (no pipeline reads the topic).
 * Every run must grow the topic by exactly the file's lines. Figures go in docs/benchmarks.md.
 *
 * {@code bin/test-main io.cognitionstreams.bench.ProduceBench --help} lists its flags ({@link Flags}).
 */
public final class ProduceBench {

    /** GNU time, for the CPU seconds each run cost: wall time alone mostly measures the other builds. */
    private static final String TIME = "/usr/bin/time";

    private ProduceBench() {
    }

    @Command(name = "bin/test-main io.cognitionstreams.bench.ProduceBench", description = "`cognition produce "
            + "--file` against Kafka's console producer on the same file of requests, each run a fresh JVM, on an "
            + "embedded broker; figures for docs/benchmarks.md.")
    static final class Flags {

        @Option(names = "--lines", paramLabel = "N", defaultValue = "50000",
                description = "Requests in the file (default: ${DEFAULT-VALUE}).")
        int lines;

        @Option(names = "--runs", paramLabel = "N", defaultValue = "3",
                description = "Runs of each producer (default: ${DEFAULT-VALUE}).")
        int runs;

        @Option(names = "--console-classpath", paramLabel = "FILE", description = "A file holding a classpath with "
                + "org.apache.kafka:kafka-tools; without it only `cognition produce` runs.")
        Path consoleClasspath;

        @Option(names = "--cognition-classpath", paramLabel = "FILE", description = "A file holding the classpath "
                + "of another build (an older commit, say) to run `cognition produce` from with java -Xmx1g "
                + "(default: bin/cognition, as a user runs it).")
        Path cognitionClasspath;
    }

    public static void main(String[] args) throws Exception {
        Flags flags = RunArgs.parseOrExit(new Flags(), args);
        String consoleClasspath = flags.consoleClasspath == null ? null
                : Files.readString(flags.consoleClasspath).strip();
        List<String> cognition = flags.cognitionClasspath == null
                ? List.of(Path.of("bin", "cognition").toAbsolutePath().toString())
                : List.of(java(), "-Xmx1g", "-cp", Files.readString(flags.cognitionClasspath).strip(),
                        "io.cognitionstreams.cli.CognitionCli");
        Path dir = Files.createTempDirectory("produce-bench");
        Path file = dir.resolve("requests.jsonl");
        writeRequests(file, flags.lines);
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(
                new BrokerSettings(dir.resolve("broker"), 0, 0, Duration.ofSeconds(60)));
             Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                     broker.bootstrapServers()))) {
            TopicProvisioner.ensure(admin, topics, 3, (short) 1);
            String bootstrap = broker.bootstrapServers();
            System.out.printf("%d lines, %,d bytes, broker %s%n", flags.lines, Files.size(file), bootstrap);
            for (int run = 1; run <= flags.runs; run++) {
                List<String> produce = new ArrayList<>(cognition);
                produce.addAll(List.of("produce", "--topic", Topics.COGNITION_REQUESTS, "--file", file.toString(),
                        "--bootstrap-servers", bootstrap));
                measure(admin, "cognition produce", flags.lines, produce, null);
                if (consoleClasspath != null) {
                    measure(admin, "kafka ConsoleProducer", flags.lines, List.of(java(), "-Xmx1g", "-cp",
                            consoleClasspath, "org.apache.kafka.tools.ConsoleProducer", "--bootstrap-server",
                            bootstrap, "--topic", Topics.COGNITION_REQUESTS), file);
                }
            }
        }
    }

    private static void measure(Admin admin, String name, int lines, List<String> command, Path stdin)
            throws Exception {
        long before = records(admin);
        List<String> timed = new ArrayList<>(List.of(TIME, "-f", "cpu %U %S"));
        timed.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(timed).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Path err = Files.createTempFile("produce-bench", ".err");
        builder.redirectError(err.toFile());
        if (stdin != null) {
            builder.redirectInput(stdin.toFile());
        }
        long started = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(30, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not finish in 30 minutes");
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long added = records(admin) - before;
        List<String> said = Files.readAllLines(err);
        String[] cpu = said.get(said.size() - 1).split(" ");
        double cpuSeconds = Double.parseDouble(cpu[1]) + Double.parseDouble(cpu[2]);
        String summary = said.stream().filter(line -> line.startsWith("sent ")).findFirst().orElse("");
        System.out.printf("%-22s exit %d  %,d records in %6.2f s wall = %,8.0f records/s, %5.2f s CPU   %s%n",
                name, process.exitValue(), added, seconds, added / seconds, cpuSeconds, summary);
        if (added != lines || process.exitValue() != 0) {
            throw new IllegalStateException(name + " added " + added + " records, not " + lines + ": " + said);
        }
    }

    private static long records(Admin admin) throws Exception {
        List<TopicPartition> partitions = admin.describeTopics(List.of(Topics.COGNITION_REQUESTS)).allTopicNames()
                .get().get(Topics.COGNITION_REQUESTS).partitions().stream()
                .map(p -> new TopicPartition(Topics.COGNITION_REQUESTS, p.partition())).toList();
        return admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())))
                .all().get().values().stream().mapToLong(info -> info.offset()).sum();
    }

    /** Distinct requests over 1,000 sessions, prompts of 60-300 characters: the shape agents send. */
    private static void writeRequests(Path file, int lines) throws IOException {
        List<String> words = new ArrayList<>(List.of("plan", "the", "deploy", "of", "release", "2.4.0", "and",
                "check", "that", "its", "tests", "pass", "before", "tagging", "summarize", "changes"));
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < lines; i++) {
                StringBuilder prompt = new StringBuilder();
                for (int w = 0; prompt.length() < 60 + (i * 37) % 240; w++) {
                    prompt.append(words.get((i + w * 7) % words.size())).append(' ');
                }
                out.write("{\"request_id\":\"bench-" + i + "\",\"session_id\":\"bench-session-" + (i % 1000)
                        + "\",\"user_prompt\":\"" + prompt.toString().strip() + "\",\"persona\":\"architect\","
                        + "\"target_model\":\"gpt-4o\",\"timestamp\":\"2026-11-22T10:00:00Z\"}\n");
            }
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
