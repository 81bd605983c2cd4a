package io.cognitionstreams.telemetry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * What Prometheus and Kubernetes ask a running instance over HTTP: {@code /metrics} (Prometheus' text format, or
 * OpenMetrics when the scraper asks for it), {@code /health/live} (the process answers) and {@code /health/ready}
 * (200 once the readiness check finds nothing missing, 503 with what is missing until then). The JDK's own HTTP
 * server, on one thread: a scrape is a few milliseconds and no one else calls it.
 */
public final class MetricsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);

    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;
    private volatile Supplier<Optional<String>> notReady = () -> Optional.of("starting");

    private MetricsServer(HttpServer server, ExecutorService thread) {
        this.server = server;
        this.thread = thread;
    }

    /** Serves {@code registry} on {@code host:port} (port 0: any free one) until closed. */
    public static MetricsServer start(String host, int port, PrometheusMeterRegistry registry) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread named = new Thread(runnable, "metrics-http");
            named.setDaemon(true);
            return named;
        });
        MetricsServer metrics = new MetricsServer(server, thread);
        server.createContext("/metrics", exchange -> {
            String accept = exchange.getRequestHeaders().getFirst("Accept");
            String type = accept != null && accept.contains("application/openmetrics-text") ? OPEN_METRICS : TEXT;
            String body;
            try {
                body = registry.scrape(type);
            } catch (RuntimeException e) {
                LOG.warn("a scrape failed", e);
                respond(exchange, 500, TEXT, "the scrape failed: " + e + "\n");
                return;
            }
            respond(exchange, 200, type, body);
        });
        server.createContext("/health/live", exchange -> respond(exchange, 200, TEXT, "live\n"));
        server.createContext("/health/ready", exchange -> {
            Optional<String> missing;
            try {
                missing = metrics.notReady.get();
            } catch (RuntimeException e) {
                missing = Optional.of("the readiness check failed: " + e);
            }
            respond(exchange, missing.isEmpty() ? 200 : 503, TEXT, missing.map(why -> "not ready: " + why)
                    .orElse("ready") + "\n");
        });
        server.setExecutor(thread);
        server.start();
        return metrics;
    }

    /** What /health/ready asks: empty when ready, else what is missing. */
    public void readiness(Supplier<Optional<String>> check) {
        this.notReady = check;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
    }
}
