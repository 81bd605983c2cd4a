package io.cognitionstreams.bench;

import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.telemetry.Meters;
import io.cognitionstreams.telemetry.Telemetry;
import io.cognitionstreams.telemetry.Tracing;

/**
 * What watching costs a hop, in process: a Kafka Streams hop's span (opened on its input, its context written into
 * one output's headers, ended) with tracing off and on (batched to an exporter that drops the spans, so OTLP's
 * serialization and sending are not in it), and one count of {@link Meters#written} without and with a Prometheus
 * registry. `bench --observed` measures the whole pipeline; this bounds the part each record pays.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class TelemetryBench {

    @Param({"off", "on"})
    public String watching;

    private OpenTelemetrySdk sdk;
    private PrometheusMeterRegistry registry;
    private CognitionRequest request;
    private ToolResult result;

    @Setup(Level.Trial)
    public void setUp() {
        request = CognitionRequest.newBuilder().setRequestId("r1").setSessionId("s1").setUserPrompt("Plan the deploy")
                .setTargetModel("gpt-4o").setTimestamp(Instant.EPOCH).build();
        result = ToolResult.newBuilder().setCallId("c1").setSessionId("s1").setTool("mcp__workspace__list_files")
                .setSuccess(true).setStatus(ToolStatus.SUCCEEDED).setExecutor("mcp:workspace").setDurationMs(12L)
                .setTimestamp(Instant.EPOCH).build();
        if (watching.equals("on")) {
            sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(BatchSpanProcessor.builder(new Dropping()).build()).build()).build();
            Tracing.install(sdk, Optional.empty());
            registry = Telemetry.prometheus("bench", "bench");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Tracing.off();
        if (sdk != null) {
            sdk.close();
            Telemetry.remove(registry);
        }
    }

    /** A request's hop: its span (a new trace), one output's headers, the end. */
    @Benchmark
    public RecordHeaders hop() {
        RecordHeaders headers = new RecordHeaders();
        try (Tracing.Hop hop = Tracing.hop("bench-assembly", "cognition.requests", new RecordHeaders(), request)) {
            Tracing.writing(headers, request);
        }
        return headers;
    }

    /** One record counted at a topology's sink. */
    @Benchmark
    public void count() {
        Meters.written("bench-gatekeeper", "tool.results", result);
    }

    private static final class Dropping implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }
}
