package io.cognitionstreams.telemetry;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;

import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;

/**
 * One trace per request across every hop of the pipeline, carried in the records' headers as W3C
 * {@code traceparent} (and {@code baggage}, which names the turn's {@code invoke_agent} span so the next turn can
 * link to it). Each hop continues the context of the record it reads and writes its own into every record it writes:
 * the Kafka Streams capabilities through {@link #hop} (the processor wrapper) and {@link #writing} (the sink every
 * topology ends in), the workers through {@link #continueFrom} and {@link Hop#inject}. Spans follow OpenTelemetry's
 * GenAI conventions: {@code invoke_agent} (the assembly writing a turn's packet), {@code chat} (the model),
 * {@code apply_guardrail} (routing's scrubbing, the gatekeeper's permission check), {@code execute_tool} (the
 * executor); other hops are {@code process <topic>}, as messaging spans are named.
 *
 * <p>Off until {@link #install}: then every method returns at its first check and writes no header. Prompt and tool
 * contents go on spans only when installed with a content redactor ({@code --trace-content}), scrubbed by it.
 */
public final class Tracing {

    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    public static final AttributeKey<String> CONVERSATION = AttributeKey.stringKey("gen_ai.conversation.id");
    public static final AttributeKey<String> AGENT = AttributeKey.stringKey("gen_ai.agent.name");
    public static final AttributeKey<String> TOOL = AttributeKey.stringKey("gen_ai.tool.name");
    public static final AttributeKey<String> TOOL_CALL = AttributeKey.stringKey("gen_ai.tool.call.id");
    public static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    public static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    public static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    public static final AttributeKey<Long> OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
    public static final AttributeKey<String> INPUT_MESSAGES = AttributeKey.stringKey("gen_ai.input.messages");
    public static final AttributeKey<String> OUTPUT_MESSAGES = AttributeKey.stringKey("gen_ai.output.messages");
    public static final AttributeKey<String> TOOL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    public static final AttributeKey<String> TOOL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    public static final AttributeKey<String> CAPABILITY = AttributeKey.stringKey("cognition.capability");
    public static final AttributeKey<String> VERDICT = AttributeKey.stringKey("cognition.verdict");
    public static final AttributeKey<String> TOOL_STATUS = AttributeKey.stringKey("cognition.tool.status");

    /** The baggage entry naming the turn's invoke_agent span ({@code <trace id>-<span id>}). */
    static final String TURN = "cognition.turn";
    private static final String AGENT_NAME = "cognition";

    private static volatile Tracer tracer;
    private static volatile TextMapPropagator propagator = TextMapPropagator.noop();
    private static volatile UnaryOperator<String> content;
    private static final ThreadLocal<Hop> CURRENT = new ThreadLocal<>();

    private Tracing() {
    }

    /**
     * Traces from now on with {@code otel}; {@code content}, when present, puts prompts, answers and tool
     * arguments and results on the spans after passing them through it (the channels' redactor).
     */
    public static void install(OpenTelemetry otel, Optional<UnaryOperator<String>> content) {
        Tracing.content = content.orElse(null);
        propagator = TextMapPropagator.composite(W3CTraceContextPropagator.getInstance(),
                W3CBaggagePropagator.getInstance());
        tracer = otel.getTracer("io.cognitionstreams");
    }

    /** No more traces (tests). */
    public static void off() {
        tracer = null;
        content = null;
        propagator = TextMapPropagator.noop();
    }

    /**
     * A Kafka Streams capability starts on an input record: a span for the hop when the record carries a context,
     * or is a request (which starts a trace), current until closed. Nested calls (the processors the first one
     * forwards to) and untraced records get a hop that does nothing.
     *
     * @param application the capability's application id ({@code <application id>-<capability>})
     */
    public static Hop hop(String application, String topic, Headers headers, Object value) {
        Tracer active = tracer;
        if (active == null || CURRENT.get() != null) {
            return Hop.NONE;
        }
        Context parent = extract(headers);
        if (!Span.fromContext(parent).getSpanContext().isValid() && !(value instanceof CognitionRequest)) {
            return Hop.NONE;
        }
        String capability = Meters.capability(application);
        String name = "process " + topic;
        if (application != null && application.endsWith("-routing") && topic.equals("llm.outputs")) {
            name = "apply_guardrail routing";
        } else if (application != null && application.endsWith("-gatekeeper") && topic.equals("tool.calls")) {
            name = "apply_guardrail gatekeeper";
        }
        Span span = active.spanBuilder(name).setParent(parent).setSpanKind(SpanKind.CONSUMER)
                .setAttribute(DESTINATION, topic).setAttribute(CAPABILITY, capability).startSpan();
        if (name.startsWith("apply_guardrail")) {
            span.setAttribute(OPERATION, "apply_guardrail");
        }
        describe(span, value);
        Hop hop = new Hop(span, parent.with(span), true);
        CURRENT.set(hop);
        return hop;
    }

    /**
     * A topology writes {@code value}: its headers get the current hop's context (replacing the input's, which
     * Kafka Streams forwards). A packet makes the hop the turn's {@code invoke_agent} span.
     */
    public static void writing(Headers headers, Object value) {
        Hop hop = CURRENT.get();
        if (hop == null || tracer == null) {
            return;
        }
        if (value instanceof CognitionPacket packet) {
            hop.invokeAgent(packet);
        }
        inject(hop.context, headers);
    }

    /** A worker starts on a record: a span continuing its context, or nothing when it carries none. */
    public static Hop continueFrom(ConsumerRecord<?, ?> record) {
        return continueFrom(record.topic(), record.headers(), Instant.now());
    }

    /**
     * A worker's hop on a record of {@code topic} with {@code headers}, begun at {@code started}: the executor
     * makes its span once the tool has run.
     */
    public static Hop continueFrom(String topic, Headers headers, Instant started) {
        Tracer active = tracer;
        if (active == null) {
            return Hop.NONE;
        }
        Context parent = extract(headers);
        if (!Span.fromContext(parent).getSpanContext().isValid()) {
            return Hop.NONE;
        }
        Span span = active.spanBuilder("process " + topic).setParent(parent).setStartTimestamp(started)
                .setSpanKind(SpanKind.CONSUMER).setAttribute(DESTINATION, topic).startSpan();
        return new Hop(span, parent.with(span), false);
    }

    private static void describe(Span span, Object value) {
        if (value instanceof CognitionRequest request) {
            span.setAttribute(CONVERSATION, request.getSessionId());
            redacted(request.getUserPrompt()).ifPresent(text -> span.setAttribute(INPUT_MESSAGES, text));
        } else if (value instanceof LlmOutput output) {
            span.setAttribute(CONVERSATION, output.getSessionId());
            span.setAttribute(RESPONSE_MODEL, output.getModel());
        } else if (value instanceof ToolCall call) {
            tool(span, call);
        } else if (value instanceof ToolDecision decision) {
            tool(span, decision.getCall());
            span.setAttribute(VERDICT, String.valueOf(decision.getVerdict()));
        } else if (value instanceof ToolResult result) {
            span.setAttribute(CONVERSATION, result.getSessionId());
            span.setAttribute(TOOL, result.getTool());
            span.setAttribute(TOOL_CALL, result.getCallId());
            span.setAttribute(TOOL_STATUS, String.valueOf(result.getStatus()));
        } else if (value instanceof CouncilMessage message) {
            span.setAttribute(AttributeKey.stringKey("cognition.council.id"), message.getCouncilId());
            span.setAttribute(AttributeKey.stringKey("cognition.council.message"), String.valueOf(message.getType()));
        }
    }

    private static void tool(Span span, ToolCall call) {
        if (call == null) {
            return;
        }
        span.setAttribute(CONVERSATION, call.getSessionId());
        span.setAttribute(TOOL, call.getTool());
        span.setAttribute(TOOL_CALL, call.getCallId());
        redacted(call.getArguments()).ifPresent(text -> span.setAttribute(TOOL_ARGUMENTS, text));
    }

    private static Optional<String> redacted(String text) {
        UnaryOperator<String> scrub = content;
        return scrub == null || text == null ? Optional.empty() : Optional.of(scrub.apply(text));
    }

    private static Context extract(Headers headers) {
        return propagator.extract(Context.root(), headers, HEADERS);
    }

    private static void inject(Context context, Headers headers) {
        headers.remove("traceparent");
        headers.remove("tracestate");
        headers.remove("baggage");
        propagator.inject(context, headers, SET_HEADER);
    }

    private static final TextMapGetter<Headers> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
            java.util.List<String> keys = new java.util.ArrayList<>();
            carrier.forEach(header -> keys.add(header.key()));
            return keys;
        }

        @Override
        public String get(Headers carrier, String key) {
            if (carrier == null) {
                return null;
            }
            Header header = carrier.lastHeader(key);
            return header == null || header.value() == null ? null
                    : new String(header.value(), StandardCharsets.UTF_8);
        }
    };

    private static final TextMapSetter<Headers> SET_HEADER = (carrier, key, value) -> {
        if (carrier != null) {
            carrier.add(key, value.getBytes(StandardCharsets.UTF_8));
        }
    };

    /** One hop's span: ended by {@link #close}; its context goes into what the hop writes. */
    public static final class Hop implements AutoCloseable {

        /** What a hop is when nothing is traced: every method does nothing. */
        public static final Hop NONE = new Hop(null, null, false);

        private final Span span;
        /** The hop's context; after {@link #invokeAgent}, with the turn named in its baggage. */
        private Context context;
        private final boolean current;
        private Scope scope;

        private Hop(Span span, Context context, boolean current) {
            this.span = span;
            this.context = context;
            this.current = current;
            if (current) {
                scope = context.makeCurrent();
            }
        }

        /** The turn's agent invocation: the hop wrote the packet the model answers. */
        void invokeAgent(CognitionPacket packet) {
            String agent = packet.getHeader().getActiveSkill() != null ? packet.getHeader().getActiveSkill()
                    : AGENT_NAME;
            span.updateName("invoke_agent " + agent);
            span.setAttribute(OPERATION, "invoke_agent");
            span.setAttribute(AGENT, agent);
            span.setAttribute(CONVERSATION, packet.getSessionId());
            span.setAttribute(REQUEST_MODEL, packet.getTargetModel());
            // The turn this one continues (auto-continued from tool results), named in the baggage it carries.
            String previous = Baggage.fromContext(context).getEntryValue(TURN);
            if (previous != null && previous.indexOf('-') > 0) {
                SpanContext link = SpanContext.createFromRemoteParent(previous.substring(0, previous.indexOf('-')),
                        previous.substring(previous.indexOf('-') + 1), TraceFlags.getSampled(),
                        TraceState.getDefault());
                if (link.isValid()) {
                    span.addLink(link);
                }
            }
            SpanContext own = span.getSpanContext();
            context = Baggage.fromContext(context).toBuilder()
                    .put(TURN, own.getTraceId() + "-" + own.getSpanId()).build().storeInContext(context);
        }

        /** The model answered: the span becomes {@code chat <model>} with its usage. */
        public Hop chat(LlmOutput output) {
            if (span == null) {
                return this;
            }
            span.updateName("chat " + output.getModel());
            span.setAttribute(OPERATION, "chat");
            span.setAttribute(CONVERSATION, output.getSessionId());
            span.setAttribute(RESPONSE_MODEL, output.getModel());
            if (output.getPromptTokens() != null) {
                span.setAttribute(INPUT_TOKENS, (long) output.getPromptTokens());
            }
            if (output.getCompletionTokens() != null) {
                span.setAttribute(OUTPUT_TOKENS, (long) output.getCompletionTokens());
            }
            redacted(output.getText()).ifPresent(text -> span.setAttribute(OUTPUT_MESSAGES, text));
            return this;
        }

        /** A tool ran: the span becomes {@code execute_tool <tool>} with its call and status. */
        public Hop executedTool(ToolCall call, ToolResult result) {
            if (span == null) {
                return this;
            }
            span.updateName("execute_tool " + call.getTool());
            span.setAttribute(OPERATION, "execute_tool");
            tool(span, call);
            span.setAttribute(TOOL_STATUS, String.valueOf(result.getStatus()));
            redacted(result.getText() != null ? result.getText() : result.getJson())
                    .ifPresent(text -> span.setAttribute(TOOL_RESULT, text));
            if (!result.getSuccess()) {
                span.setStatus(StatusCode.ERROR, String.valueOf(result.getError()));
            }
            return this;
        }

        /** {@code record} with this hop's context in its headers. */
        public <K, V> ProducerRecord<K, V> inject(ProducerRecord<K, V> record) {
            if (span != null) {
                Tracing.inject(context, record.headers());
            }
            return record;
        }

        /** Ends the span at {@code at}. */
        public void close(Instant at) {
            if (span != null) {
                span.end(at);
                release();
            }
        }

        @Override
        public void close() {
            if (span != null) {
                span.end();
                release();
            }
        }

        private void release() {
            if (current) {
                scope.close();
                CURRENT.remove();
            }
        }
    }
}
