package io.cognitionstreams.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The endpoint as Prometheus and Kubernetes call it, over HTTP, with Kafka metrics arriving through the bridge as a
 * Kafka client's reporter would get them.
 */
class MetricsServerTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static PrometheusMeterRegistry registry;
    private static MetricsServer server;

    @BeforeAll
    static void start() throws Exception {
        registry = Telemetry.prometheus("observe-test", "instance-1");
        server = MetricsServer.start("127.0.0.1", 0, registry);
    }

    @AfterAll
    static void stop() {
        server.close();
        Telemetry.remove(registry);
    }

    @Test
    void servesKafkaMetricsBridgedWithTheirLabelsAndTheAppsCounts() throws Exception {
        try (Metrics kafka = new Metrics(new MetricConfig(), List.of(new JmxReporter(), new KafkaMetricsBridge()),
                Time.SYSTEM, new KafkaMetricsContext("kafka.streams"))) {
            Sensor process = kafka.sensor("process");
            Map<String, String> thread = Map.of("thread-id", "app-StreamThread-1");
            process.add(kafka.metricName("process-rate", "stream-thread-metrics", "records a second", thread),
                    new Rate());
            process.add(kafka.metricName("process-total", "stream-thread-metrics", "records", thread),
                    new CumulativeSum());
            // Kafka has a few metrics at two levels: the one with more labels is kept, as Micrometer's binders do.
            Sensor lag = kafka.sensor("lag");
            lag.add(kafka.metricName("records-lag-max", "consumer-fetch-manager-metrics", "", Map.of(
                    "client-id", "c1")), new CumulativeSum());
            lag.add(kafka.metricName("records-lag-max", "consumer-fetch-manager-metrics", "", Map.of(
                    "client-id", "c1", "topic", "cognition.requests", "partition", "0")), new CumulativeSum());
            process.record(1);
            process.record(1);
            Meters.deadLetter("observe-test-assembly", "DESERIALIZATION", "cognition.requests");

            String text = get("/metrics").body();

            assertThat(text)
                    .contains("kafka_stream_thread_process_total{application_id=\"observe-test\","
                            + "instance_id=\"instance-1\",thread_id=\"app-StreamThread-1\"} 2.0")
                    .contains("# TYPE kafka_stream_thread_process_rate gauge")
                    .contains("kafka_consumer_fetch_manager_records_lag_max{application_id=\"observe-test\","
                            + "client_id=\"c1\",instance_id=\"instance-1\",partition=\"0\",topic=\"cognition.requests\"}")
                    .contains("# HELP cognition_dead_letters_total Records dead-lettered")
                    .containsPattern("cognition_dead_letters_total\\{application_id=\"observe-test\","
                            + "capability=\"assembly\",instance_id=\"instance-1\",kind=\"DESERIALIZATION\","
                            + "topic=\"cognition.requests\"} [1-9]")
                    .contains("jvm_memory_used_bytes");
        }
        assertThat(get("/metrics").body()).as("a closed client's metrics go with it")
                .doesNotContain("kafka_stream_thread_process_total");
    }

    @Test
    void bridgesTheAppsOwnKafkaGaugesUnderItsName() throws Exception {
        AtomicReference<Integer> hanging = new AtomicReference<>(3);
        try (Metrics metrics = new Metrics(new MetricConfig(), List.of(new KafkaMetricsBridge()), Time.SYSTEM,
                new KafkaMetricsContext("cognition.health"))) {
            metrics.addMetric(metrics.metricName("hanging-transactions", "transactions", "hanging",
                    Map.of("application-id", "observe-test")),
                    (org.apache.kafka.common.metrics.Gauge<Integer>) (config, now) -> hanging.get());
            assertThat(get("/metrics").body()).contains("cognition_hanging_transactions{application_id="
                    + "\"observe-test\",instance_id=\"instance-1\"} 3.0");
        }
    }

    @Test
    void speaksOpenMetricsToAScraperThatAsksForIt() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + server.port() + "/metrics"))
                .header("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.headers().firstValue("Content-Type")).get().asString()
                .startsWith("application/openmetrics-text");
        assertThat(response.body()).endsWith("# EOF\n");
    }

    @Test
    void isLiveAtOnceAndReadyOnlyWhenTheCheckFindsNothingMissing() throws Exception {
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
        server.readiness(() -> Optional.of("routing is REBALANCING"));
        HttpResponse<String> notReady = get("/health/ready");
        assertThat(notReady.statusCode()).isEqualTo(503);
        assertThat(notReady.body()).contains("routing is REBALANCING");
        server.readiness(Optional::empty);
        assertThat(get("/health/ready").statusCode()).isEqualTo(200);
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
