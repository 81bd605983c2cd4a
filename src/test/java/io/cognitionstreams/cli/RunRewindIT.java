package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.topics.Topics;

/**
 * README's rewind of the app's own groups on the embedded default, as the launcher runs it: the broker lives in the
 * app's process, so `cognition rewind` always finds the groups active; `run --rewind-to-time` moves them at the
 * next start, after the broker is up and before anything consumes. Rewinding the model worker to before the first
 * run makes the second run answer the first run's packets again.
 */
class RunRewindIT {

    private static final String MODEL_WORKER = Settings.DEFAULT_APPLICATION_ID + "-model-worker";
    private static final Set<String> DEMO_SESSIONS = Set.of("demo-deploy", "demo-triage", "demo-research",
            "demo-cleanup", "demo-inspect");

    @TempDir
    Path dir;

    @Test
    void runRewindsTheModelWorkersGroupAtStartAndThePreviousRunsPacketsAreAnsweredAgain() throws Exception {
        Path data = dir.resolve("data");
        Instant beforeFirstRun = Instant.now();
        Cli first = Cli.launch(dir, "run", "--data-dir", data.toString(), "--port", String.valueOf(Cli.freePort()),
                "--controller-port", String.valueOf(Cli.freePort()), "--demo", "--exit-after-demo",
                "--demo-timeout", "240s");
        assertThat(first.exitCode()).as(first.err()).isZero();

        int port = Cli.freePort();
        Path out = dir.resolve("second-stdout.txt");
        Path err = dir.resolve("second-stderr.txt");
        Process second = Cli.start(out, err, "run", "--data-dir", data.toString(), "--port", String.valueOf(port),
                "--controller-port", String.valueOf(Cli.freePort()), "--rewind-to-time", beforeFirstRun.toString(),
                "--rewind-group", MODEL_WORKER);
        try {
            Cli.awaitRunning(second, err);
            assertThat(Files.readString(out, StandardCharsets.UTF_8)).as("before the app started")
                    .contains("rewound consumer group " + MODEL_WORKER + " to " + beforeFirstRun + " on 3 partitions");

            List<LlmOutput> outputs = Kafka.readUntil("127.0.0.1:" + port,
                    new Topics(new SingleObjectAvroSerdeFactory()).llmOutputs,
                    output -> DEMO_SESSIONS.contains(output.getSessionId()),
                    seen -> answeredTwice(seen).containsAll(DEMO_SESSIONS), Duration.ofMinutes(2));
            Map<String, Long> answers = outputs.stream()
                    .collect(Collectors.groupingBy(LlmOutput::getOutputId, Collectors.counting()));
            assertThat(answers.values()).as("each packet of the first run answered once more, not more")
                    .allSatisfy(count -> assertThat(count).isBetween(1L, 2L));
        } finally {
            second.destroy();
            assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("Ctrl-C stops it").isTrue();
        }
    }

    @Test
    void aRewindNeedsBothItsTimeAndItsGroupsAndIsRefusedBeforeABrokerStarts() {
        Cli noGroup = Cli.run("run", "--data-dir", dir.resolve("unused").toString(), "--rewind-to-time",
                "2026-11-22T10:00:00Z");
        Cli badTime = Cli.run("run", "--data-dir", dir.resolve("unused").toString(), "--rewind-to-time",
                "yesterday", "--rewind-group", MODEL_WORKER);

        assertThat(noGroup.exitCode()).isEqualTo(2);
        assertThat(noGroup.err()).contains("--rewind-to-time and --rewind-group go together");
        assertThat(badTime.exitCode()).isEqualTo(2);
        assertThat(badTime.err()).contains("--rewind-to-time 'yesterday' is not an ISO-8601 instant");
        assertThat(dir.resolve("unused")).as("no broker started").doesNotExist();
    }

    /** The sessions one of whose outputs is there twice: one answer per run of the model worker over its packet. */
    private static Set<String> answeredTwice(List<LlmOutput> outputs) {
        return outputs.stream().collect(Collectors.groupingBy(LlmOutput::getOutputId, Collectors.toList()))
                .values().stream().filter(answers -> answers.size() >= 2).map(answers -> answers.get(0))
                .map(LlmOutput::getSessionId).collect(Collectors.toSet());
    }
}
