package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;

import io.cognitionstreams.telemetry.Telemetry;
import io.cognitionstreams.telemetry.Tracing;

/**
 * What `bench --observed` watches the observed deployment with, as `run --metrics-port --otlp-endpoint` would: the
 * Prometheus registry, scraped every 15 s as Prometheus would, and tracing of every request, its spans sent over
 * OTLP/HTTP to a receiver on loopback that reads and drops them (so the serialization and the sending are paid).
 */
final class BenchObservation implements AutoCloseable {

    private final PrometheusMeterRegistry registry;
    private final OpenTelemetrySdk tracing;
    private final HttpServer receiver;
    private final ScheduledExecutorService scraper;
    private volatile boolean on;

    private BenchObservation(PrometheusMeterRegistry registry, OpenTelemetrySdk tracing, HttpServer receiver) {
        this.registry = registry;
        this.tracing = tracing;
        this.receiver = receiver;
        this.scraper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "bench-scraper");
            thread.setDaemon(true);
            return thread;
        });
        scraper.scheduleAtFixedRate(() -> {
            if (on) {
                registry.scrape();
            }
        }, 15, 15, TimeUnit.SECONDS);
    }

    static BenchObservation start(String applicationId) throws IOException {
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        receiver.createContext("/v1/traces", exchange -> {
            try (exchange; InputStream body = exchange.getRequestBody()) {
                body.readAllBytes();
                exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, -1);
            }
        });
        receiver.start();
        PrometheusMeterRegistry registry = Telemetry.prometheus(applicationId, "bench");
        Telemetry.remove(registry);
        OpenTelemetrySdk tracing = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
                        io.opentelemetry.api.common.AttributeKey.stringKey("service.name"), applicationId))))
                .addSpanProcessor(BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder()
                        .setEndpoint("http://127.0.0.1:" + receiver.getAddress().getPort() + "/v1/traces").build())
                        .build())
                .build()).build();
        return new BenchObservation(registry, tracing, receiver);
    }

    /** Metrics and traces on (the observed deployment is measured) or off (the plain one is). */
    void watching(boolean watch) {
        if (watch == on) {
            return;
        }
        if (watch) {
            Telemetry.add(registry);
            Tracing.install(tracing, Optional.empty());
        } else {
            Tracing.off();
            Telemetry.remove(registry);
        }
        on = watch;
    }

    @Override
    public void close() {
        watching(false);
        scraper.shutdownNow();
        tracing.close();
        receiver.stop(0);
    }
}
