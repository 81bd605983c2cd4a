package io.cognitionstreams.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.skills.SkillFiles;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * One request through the whole loop on a real broker, a tool call and the turn its result starts included, traced
 * into OpenTelemetry's in-memory exporter: one trace, continuing the agent's traceparent, whose spans name every hop
 * with the GenAI attributes, and no prompt text since contents were not asked for.
 */
@ExtendWith(SharedBroker.class)
class TracingIT {

    private static final String AGENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String AGENT_SPAN = "00f067aa0ba902b7";
    private static final String PROMPT = "Inspect the workspace and tell me what is in it.";

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();

    @AfterEach
    void off() {
        Tracing.off();
    }

    @Test
    void oneRequestWithAToolCallIsOneTraceWhoseSpansNameEveryHop(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        Tracing.install(OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build(), Optional.empty());
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        Settings settings = Settings.local(bootstrap, "it-trace-" + run, dir.resolve("state")).withExecutor(
                new ExecutorSettings(List.of(WorkspaceServer.demoConfig(Path.of(""))), Duration.ofSeconds(60), 2,
                        ExecutorSettings.DEFAULT_MAX_RESULT_BYTES, Optional.empty(), List.of(), 1, Optional.empty()));
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        String session = "trace-" + run;
        try (CognitionRuntime runtime = CognitionRuntime.start(settings, SkillFiles.load(Path.of("skills"),
                Instant.now()))) {
            runtime.awaitRunning(Duration.ofSeconds(90));
            CognitionRequest request = CognitionRequest.newBuilder().setRequestId(session + "-r1")
                    .setSessionId(session).setUserPrompt(PROMPT).setPersona("developer").setActiveSkill("inspector")
                    .setTaskInstructionKey("initial_planning").setTargetModel("gpt-4o").setTimestamp(Instant.now())
                    .build();
            Map<String, Object> client = new HashMap<>(Logins.as(bootstrap, Logins.REQUESTS));
            client.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(client, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.requests.name(),
                        session.getBytes(StandardCharsets.UTF_8),
                        topics.requests.valueSerde().serializer().serialize(topics.requests.name(), request));
                record.headers().add("traceparent", ("00-" + AGENT_TRACE + "-" + AGENT_SPAN + "-01")
                        .getBytes(StandardCharsets.UTF_8));
                producer.send(record).get();
            }
            // The second turn's answer, started by the tool's result.
            Kafka.readUntil(bootstrap, topics.channel(Channel.CLI_CHAT), block -> block.getSessionId().equals(session)
                    && block.getMarker() == Marker.RESPONSE, seen -> !seen.isEmpty(), Duration.ofMinutes(2));
            awaitSpan("chat replay:after-tool-results", Duration.ofSeconds(30));
            awaitSpan("apply_guardrail routing", 2, Duration.ofSeconds(30));
        }

        List<SpanData> trace = exporter.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(AGENT_TRACE)).toList();
        List<String> names = trace.stream().map(SpanData::getName).toList();
        assertThat(names).contains("invoke_agent inspector", "chat replay:workspace-inspect", "apply_guardrail routing",
                "apply_guardrail gatekeeper", "execute_tool mcp__workspace__list_files", "process tool.outcomes",
                "chat replay:after-tool-results");
        assertThat(names.stream().filter(name -> name.startsWith("invoke_agent"))).as("the turn and the next")
                .hasSize(2);

        SpanData first = named(trace, "invoke_agent inspector").get(0);
        assertThat(first.getParentSpanId()).as("continues the agent's span").isEqualTo(AGENT_SPAN);
        assertThat(first.getAttributes().get(Tracing.CONVERSATION)).isEqualTo(session);
        assertThat(first.getAttributes().get(Tracing.AGENT)).isEqualTo("inspector");
        assertThat(first.getAttributes().get(Tracing.OPERATION)).isEqualTo("invoke_agent");
        SpanData chat = named(trace, "chat replay:workspace-inspect").get(0);
        assertThat(chat.getParentSpanId()).as("the model answers the packet").isEqualTo(first.getSpanId());
        assertThat(chat.getAttributes().get(Tracing.OPERATION)).isEqualTo("chat");
        SpanData tool = named(trace, "execute_tool mcp__workspace__list_files").get(0);
        assertThat(tool.getAttributes().get(Tracing.TOOL)).isEqualTo("mcp__workspace__list_files");
        assertThat(tool.getAttributes().get(Tracing.TOOL_CALL)).isNotBlank();
        assertThat(tool.getAttributes().get(Tracing.OPERATION)).isEqualTo("execute_tool");
        assertThat(named(trace, "apply_guardrail gatekeeper").get(0).getSpanId())
                .as("the executor runs what the gatekeeper approved").isEqualTo(tool.getParentSpanId());
        SpanData next = trace.stream().filter(span -> span.getName().startsWith("invoke_agent")
                && !span.getSpanId().equals(first.getSpanId())).findFirst().orElseThrow();
        assertThat(next.getLinks()).as("the next turn links to the turn it continues")
                .anySatisfy(link -> assertThat(link.getSpanContext().getSpanId()).isEqualTo(first.getSpanId()));

        Map<String, String> texts = trace.stream().flatMap(span -> span.getAttributes().asMap().entrySet().stream())
                .collect(Collectors.toMap(e -> e.getKey().getKey() + "@" + System.identityHashCode(e),
                        e -> String.valueOf(e.getValue())));
        assertThat(texts.values()).as("no prompt text without --trace-content").noneMatch(value ->
                value.contains("Inspect the workspace"));
        assertThat(trace.stream().flatMap(span -> span.getAttributes().asMap().keySet().stream())
                .map(AttributeKey::getKey)).doesNotContain(Tracing.INPUT_MESSAGES.getKey(),
                Tracing.OUTPUT_MESSAGES.getKey(), Tracing.TOOL_RESULT.getKey());
    }

    private static List<SpanData> named(List<SpanData> spans, String name) {
        return spans.stream().filter(span -> span.getName().equals(name)).toList();
    }

    private void awaitSpan(String name, Duration timeout) throws InterruptedException {
        awaitSpan(name, 1, timeout);
    }

    private void awaitSpan(String name, int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (exporter.getFinishedSpanItems().stream().filter(span -> span.getTraceId().equals(AGENT_TRACE)
                && span.getName().equals(name)).count() < count && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }
}
