package io.cognitionstreams.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.DoublePredicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Executables;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topics;

/**
 * The metrics as a real Prometheus sees them: Debian's prometheus scrapes `cognition run --metrics-port` every
 * second while requests and malformed records go through, and its HTTP API must answer with the app's series and the
 * values the traffic makes. Without prometheus installed the test is skipped, except under CI=true, where .ci/run
 * installs it.
 */
class PrometheusIT {

    private static final String APPLICATION_ID = "observe-it";
    private static final int ANSWERED = 3;
    private static final int MALFORMED = 2;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void prometheusScrapesTheAppsAnswersDeadLettersAndKafkaStreamsProcessRate() throws Exception {
        Path prometheus = Executables.required("prometheus", "apt-get install prometheus");
        int brokerPort = freePort();
        int metricsPort = freePort();
        int prometheusPort = freePort();
        Process app = Cli.start(dir.resolve("app.out"), dir.resolve("app.err"), "run", "--data-dir",
                dir.resolve("data").toString(), "--port", String.valueOf(brokerPort), "--controller-port",
                String.valueOf(freePort()), "--partitions", "1", "--application-id", APPLICATION_ID, "--metrics-port",
                String.valueOf(metricsPort), "--metrics-host", "127.0.0.1");
        Process server = null;
        try {
            Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
                    "global:",
                    "  scrape_interval: 1s",
                    "  evaluation_interval: 1s",
                    "scrape_configs:",
                    "  - job_name: cognition",
                    "    static_configs:",
                    "      - targets: ['127.0.0.1:" + metricsPort + "']",
                    ""));
            server = new ProcessBuilder(prometheus.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
                    "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + prometheusPort,
                    "--log.level=warn")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            String api = "http://127.0.0.1:" + prometheusPort;
            awaitRunning(app);

            String bootstrap = "127.0.0.1:" + brokerPort;
            Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
            for (int i = 0; i < ANSWERED; i++) {
                Kafka.send(bootstrap, topics.requests, "prom-" + i, Records.request("prom-" + i,
                        "Explain the research results of run " + i).setRequestId("prom-" + i + "-r1").build());
            }
            for (int i = 0; i < MALFORMED; i++) {
                Kafka.send(bootstrap, Topics.COGNITION_REQUESTS, "prom-bad-" + i,
                        "not avro".getBytes(StandardCharsets.UTF_8));
            }

            String ours = "application_id=\"" + APPLICATION_ID + "\"";
            assertThat(await(api, "up{job=\"cognition\"}", value -> value == 1)).isEqualTo(1);
            assertThat(await(api, "sum(cognition_model_answers_total{" + ours
                    + ",model=\"replay:research-summary\"})", value -> value >= ANSWERED))
                    .as("one answer per request").isEqualTo(ANSWERED);
            assertThat(await(api, "sum(cognition_dead_letters_total{" + ours + ",capability=\"assembly\","
                    + "kind=\"DESERIALIZATION\",topic=\"cognition.requests\"})", value -> value >= MALFORMED))
                    .as("one letter per malformed record").isEqualTo(MALFORMED);
            assertThat(await(api, "max(kafka_stream_thread_process_rate{" + ours + ",thread_id=~\""
                    + APPLICATION_ID + "-assembly-.*\"})", value -> value > 0))
                    .as("Kafka Streams' own metrics, bridged").isPositive();
            assertThat(await(api, "sum(kafka_stream_thread_process_total{" + ours + ",thread_id=~\""
                    + APPLICATION_ID + "-assembly-.*\"})", value -> value >= ANSWERED + MALFORMED))
                    .isGreaterThanOrEqualTo(ANSWERED + MALFORMED);
        } finally {
            if (server != null) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
            app.destroy();
            assertThat(app.waitFor(60, TimeUnit.SECONDS)).as("Ctrl-C stops it").isTrue();
        }
    }

    /** The first value of {@code query} that {@code done} accepts, polled every half second for a minute. */
    private static double await(String api, String query, DoublePredicate done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(api + "/api/v1/query?query="
                    + URLEncoder.encode(query, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                JsonNode result = JSON.readTree(response.body()).path("data").path("result");
                if (result.size() == 1) {
                    double value = Double.parseDouble(result.get(0).path("value").get(1).asText());
                    if (done.test(value)) {
                        return value;
                    }
                }
                seen.add(result.toString());
            }
            Thread.sleep(500);
        }
        throw new AssertionError("Prometheus never answered " + query + " as expected; last answers: "
                + seen.subList(Math.max(0, seen.size() - 3), seen.size()));
    }

    private void awaitRunning(Process app) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!Files.readString(dir.resolve("app.err"), StandardCharsets.UTF_8)
                .contains("cognition streams running")) {
            if (!app.isAlive() || System.nanoTime() > deadline) {
                fail("the app did not start; its stderr:\n" + Files.readString(dir.resolve("app.err")));
            }
            Thread.sleep(200);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
