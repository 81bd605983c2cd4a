package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.telemetry.KafkaMetricsBridge;
import io.cognitionstreams.telemetry.MetricsServer;
import io.cognitionstreams.telemetry.Telemetry;
import picocli.CommandLine.Option;

/** How `run` is watched: the metrics and health endpoint (docs/operations.md, "Watching it"). */
final class TelemetryOptions {

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve /metrics (Prometheus), /health/live and /health/ready on this port. Default: off, "
                    + "and then nothing is counted beyond JMX.")
    Integer metricsPort;

    @Option(names = "--metrics-host", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Address the metrics endpoint listens on (default: ${DEFAULT-VALUE}).")
    String metricsHost;

    boolean metricsOn() {
        return metricsPort != null;
    }

    /** The endpoint, when asked for: started before the broker, so liveness answers while the app starts. */
    Optional<MetricsServer> startMetrics(String applicationId, String instanceId, PrintWriter err)
            throws IOException {
        if (!metricsOn()) {
            return Optional.empty();
        }
        MetricsServer server = MetricsServer.start(metricsHost, metricsPort,
                Telemetry.prometheus(applicationId, instanceId));
        err.printf("metrics at http://%s:%d/metrics (health: /health/live, /health/ready)%n", metricsHost,
                server.port());
        err.flush();
        return Optional.of(server);
    }

    /** The settings every Kafka client of the app gets: with the bridge of Kafka's metrics when they are served. */
    Map<String, Object> clientSettings(Map<String, Object> settings) {
        return metricsOn() ? KafkaMetricsBridge.clientSettings(settings) : settings;
    }
}
