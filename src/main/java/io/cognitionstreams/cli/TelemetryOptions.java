package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;

import io.cognitionstreams.telemetry.KafkaMetricsBridge;
import io.cognitionstreams.telemetry.MetricsServer;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.telemetry.Telemetry;
import io.cognitionstreams.telemetry.Tracing;
import picocli.CommandLine.Option;

/** How `run` is watched: the metrics and health endpoint, and traces (docs/operations.md, "Watching it"). */
final class TelemetryOptions {

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve /metrics (Prometheus), /health/live and /health/ready on this port. Default: off, "
                    + "and then nothing is counted beyond JMX.")
    Integer metricsPort;

    @Option(names = "--metrics-host", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Address the metrics endpoint listens on (default: ${DEFAULT-VALUE}).")
    String metricsHost;

    @Option(names = "--otlp-endpoint", paramLabel = "URL",
            description = "Send traces over OTLP (http/protobuf) to this collector, e.g. http://localhost:4318 "
                    + "(Jaeger, an OpenTelemetry collector, Langfuse's OTLP endpoint). The standard OTEL_* variables "
                    + "apply too (OTEL_EXPORTER_OTLP_ENDPOINT also turns tracing on). Default: off, costing nothing.")
    String otlpEndpoint;

    @Option(names = "--trace-content", description = "Put prompts, answers, tool arguments and results on the "
            + "spans, redacted as the channels are (--redaction-config). Default: ids, names and counts only.")
    boolean traceContent;

    boolean metricsOn() {
        return metricsPort != null;
    }

    /** The endpoint, when asked for: started before the broker, so liveness answers while the app starts. */
    Optional<MetricsServer> startMetrics(String applicationId, Supplier<String> instanceId, PrintWriter err)
            throws IOException {
        if (!metricsOn()) {
            return Optional.empty();
        }
        MetricsServer server = MetricsServer.start(metricsHost, metricsPort,
                Telemetry.prometheus(applicationId, instanceId.get()));
        err.printf("metrics at http://%s:%d/metrics (health: /health/live, /health/ready)%n", metricsHost,
                server.port());
        err.flush();
        return Optional.of(server);
    }

    boolean tracingOn() {
        return otlpEndpoint != null || System.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != null
                || System.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != null;
    }

    /**
     * Tracing, when asked for: an OpenTelemetry SDK configured from the OTEL_* settings, --otlp-endpoint over them,
     * metrics and logs not exported (Prometheus has the metrics). Closing it flushes the spans not yet sent.
     */
    Optional<OpenTelemetrySdk> startTracing(String applicationId, Optional<Path> redactionConfig, PrintWriter err)
            throws IOException {
        if (!tracingOn()) {
            return Optional.empty();
        }
        Map<String, String> flags = new HashMap<>(Map.of("otel.metrics.exporter", "none",
                "otel.logs.exporter", "none", "otel.traces.exporter", "otlp"));
        if (System.getenv("OTEL_SERVICE_NAME") == null) {
            flags.put("otel.service.name", applicationId);
        }
        if (otlpEndpoint != null) {
            flags.put("otel.exporter.otlp.endpoint", otlpEndpoint);
            flags.put("otel.exporter.otlp.protocol", "http/protobuf");
        }
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder().addPropertiesCustomizer(config -> flags)
                .disableShutdownHook().build().getOpenTelemetrySdk();
        Optional<UnaryOperator<String>> content = Optional.empty();
        if (traceContent) {
            Redactor redactor = redactionConfig.isPresent() ? Redactor.fromConfig(redactionConfig.get())
                    : Redactor.defaults();
            content = Optional.of(text -> redactor.redact(text).text());
        }
        Tracing.install(sdk, content);
        err.printf("tracing to %s%s%n", otlpEndpoint != null ? otlpEndpoint : System.getenv().getOrDefault(
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", System.getenv("OTEL_EXPORTER_OTLP_ENDPOINT")),
                traceContent ? ", with contents (redacted)" : "");
        err.flush();
        return Optional.of(sdk);
    }

    /** The settings every Kafka client of the app gets: with the bridge of Kafka's metrics when they are served. */
    Map<String, Object> clientSettings(Map<String, Object> settings) {
        return metricsOn() ? KafkaMetricsBridge.clientSettings(settings) : settings;
    }
}
