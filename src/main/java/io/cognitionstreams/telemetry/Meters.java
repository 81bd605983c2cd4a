package io.cognitionstreams.telemetry;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;

import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.topics.Topics;

/**
 * Every count the app keeps of itself, named here as {@code topics/Topics} names every topic, so docs/operations.md's
 * table has one source. Names follow Prometheus' conventions once the registry renders them: {@code cognition_},
 * base units ({@code _seconds}), {@code _total} on counters. Labels are bounded: no session, request or call id ever;
 * a label whose values come from records (model, council, executor) keeps its first {@link #MAX_VALUES} values and
 * counts the rest as {@code (other)}.
 *
 * <p>Without a registry ({@code run} without {@code --metrics-port}) every count returns at its first check.
 *
 * <p>Counts made in a stream processor or a worker's transaction mean "records processed": a task retried after a
 * crash or an aborted transaction counts its uncommitted records again, as Kafka Streams' own process-total does. The
 * topics stay the exact record; the counters are for rates and alerts.
 */
public final class Meters {

    public static final String ANSWERS = "cognition.model.answers";
    public static final String TOKENS = "cognition.model.tokens";
    public static final String ANSWER_LATENCY = "cognition.model.answer.latency";
    public static final String DEAD_LETTERS = "cognition.dead.letters";
    public static final String EVENTS = "cognition.events";
    public static final String TOOL_DECISIONS = "cognition.tool.decisions";
    public static final String TOOL_CALLS = "cognition.tool.calls";
    public static final String TOOL_DURATION = "cognition.tool.duration";
    public static final String ROUTED_BLOCKS = "cognition.routed.blocks";
    public static final String COUNCIL_MESSAGES = "cognition.council.messages";
    public static final String COUNCIL_DECISIONS = "cognition.council.decisions";
    public static final String REANCHORS = "cognition.assembly.reanchors";
    public static final String RESULTS_HELD = "cognition.assembly.results.held";
    public static final String MEMORY_SHELF_BYTES = "cognition.memory.shelf.bytes";

    /** Distinct values a label whose values come from records may take in one process. */
    static final int MAX_VALUES = 100;
    static final String OTHER = "(other)";
    static final String NONE = "(none)";
    /** Buckets of the latency histograms: from a fast hop to a slow model or tool. */
    private static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(120), Duration.ofSeconds(300)};

    private static final Map<String, Set<String>> SEEN = new ConcurrentHashMap<>();

    private Meters() {
    }

    /** The model worker wrote an answer: its model, its tokens in and out, the time from packet to answer. */
    public static void answered(String model, Integer inputTokens, Integer outputTokens, Duration latency) {
        if (!Telemetry.watched()) {
            return;
        }
        String label = bounded("model", model);
        Counter.builder(ANSWERS).description("Answers the model worker wrote to llm.outputs")
                .tag("model", label).register(Telemetry.meters()).increment();
        tokens(label, "input", inputTokens);
        tokens(label, "output", outputTokens);
        Timer.builder(ANSWER_LATENCY).description("From a packet's assembly to its answer (queueing and the call)")
                .tag("model", label).serviceLevelObjectives(BUCKETS).register(Telemetry.meters()).record(latency);
    }

    /** A count the model did not report (null) adds nothing. */
    private static void tokens(String model, String type, Integer count) {
        // The label name is OpenTelemetry's gen_ai.token.type.
        Counter.builder(TOKENS).baseUnit("tokens").description("Tokens the model read (input) and wrote (output)")
                .tag("model", model).tag("type", type).register(Telemetry.meters()).increment(count == null ? 0 : Math.max(0, count));
    }

    /**
     * A dead letter was made.
     *
     * @param application the application id (or worker group) that refused the record
     * @param kind        the letter's error kind
     * @param topic       where the refused record was
     */
    public static void deadLetter(String application, String kind, String topic) {
        if (!Telemetry.watched()) {
            return;
        }
        Counter.builder(DEAD_LETTERS).description("Records dead-lettered to cognition.dlq, by error kind")
                .tag("capability", capability(application)).tag("kind", String.valueOf(kind))
                .tag("topic", bounded("topic", topic)).register(Telemetry.meters()).increment();
    }

    /**
     * A topology wrote {@code record} to {@code topic}: counted by what it says (an event's type, a decision's
     * verdict, a result's status); records of other kinds are not counted here.
     *
     * @param application the Kafka Streams application id of the capability that wrote it
     */
    public static void written(String application, String topic, Object record) {
        if (!Telemetry.watched()) {
            return;
        }
        if (record instanceof PipelineEvent event) {
            Counter.builder(EVENTS).description("Pipeline events on cognition.events, by type")
                    .tag("capability", capability(application)).tag("type", bounded("type", event.getType()))
                    .register(Telemetry.meters()).increment();
        } else if (record instanceof ToolDecision decision) {
            Counter.builder(TOOL_DECISIONS).description("The gatekeeper's decisions on tool calls, by verdict")
                    .tag("verdict", String.valueOf(decision.getVerdict())).register(Telemetry.meters()).increment();
        } else if (record instanceof ToolResult result && topic.equals(Topics.TOOL_RESULTS)) {
            String executor = bounded("executor", result.getExecutor());
            Counter.builder(TOOL_CALLS).description("Tool calls' results on tool.results, by status and executor")
                    .tag("status", result.getStatus() != null ? result.getStatus().name()
                            : result.getSuccess() ? "SUCCEEDED" : "FAILED")
                    .tag("executor", executor).register(Telemetry.meters()).increment();
            if (result.getDurationMs() != null) {
                Timer.builder(TOOL_DURATION).description("How long tools ran, by executor").tag("executor", executor)
                        .serviceLevelObjectives(BUCKETS).register(Telemetry.meters())
                        .record(Duration.ofMillis(result.getDurationMs()));
            }
        } else if (record instanceof CouncilDecision decision) {
            Counter.builder(COUNCIL_DECISIONS).description("Council decisions, by outcome (EXPIRED: a proposal's "
                            + "time ran out)").tag("council", bounded("council", decision.getCouncilId()))
                    .tag("outcome", String.valueOf(decision.getOutcome())).register(Telemetry.meters()).increment();
        } else if (record instanceof RoutedBlock block) {
            Counter.builder(ROUTED_BLOCKS).description("Blocks marker routing sent to a channel, by channel and marker")
                    .tag("channel", bounded("channel", block.getChannel())).tag("marker", String.valueOf(block.getMarker()))
                    .register(Telemetry.meters()).increment();
        }
    }

    /** The council took a message (a refused one is a dead letter): proposals, votes, heartbeats, by type. */
    public static void councilMessage(CouncilMessage message) {
        if (!Telemetry.watched()) {
            return;
        }
        Counter.builder(COUNCIL_MESSAGES).description("Council messages the council took, by type")
                .tag("council", bounded("council", message.getCouncilId()))
                .tag("type", String.valueOf(message.getType())).register(Telemetry.meters()).increment();
    }

    /** The assembly put a denied skill's protocol in front of the model again. */
    /** A tool result read before the answer that made its call, which it then waited for. */
    public static void resultHeld() {
        if (!Telemetry.watched()) {
            return;
        }
        Counter.builder(RESULTS_HELD).description("Tool results the assembly read before the answer that made "
                + "their call, held until that answer joined the history").register(Telemetry.meters()).increment();
    }

    public static void reanchored() {
        if (!Telemetry.watched()) {
            return;
        }
        Counter.builder(REANCHORS).description("Packets re-anchored with a denied skill's protocol")
                .register(Telemetry.meters()).increment();
    }

    /** Heap the memory scopes in use take (their shelves), read from {@code holder} at each scrape. */
    public static <T> void memoryShelfBytes(T holder, ToDoubleFunction<T> bytes) {
        Gauge.builder(MEMORY_SHELF_BYTES, holder, bytes).baseUnit("bytes")
                .description("Heap the episodic memory scopes in use take on this instance (their shelves)")
                .register(Telemetry.meters());
    }

    /** The capability in a Kafka Streams application id {@code <application id>-<capability>}. */
    static String capability(String application) {
        if (application == null) {
            return NONE;
        }
        String prefix = Telemetry.applicationId() + "-";
        if (Telemetry.applicationId().isEmpty()) {
            // No registry started (tracing alone): the capabilities' names have no dash.
            return bounded("capability", application.substring(application.lastIndexOf('-') + 1));
        }
        return bounded("capability", application.startsWith(prefix) ? application.substring(prefix.length())
                : application);
    }

    /** {@code value}, or {@code (other)} once the label has {@link #MAX_VALUES} others. */
    static String bounded(String label, String value) {
        if (value == null || value.isEmpty()) {
            return NONE;
        }
        Set<String> seen = SEEN.computeIfAbsent(label, name -> ConcurrentHashMap.newKeySet());
        if (seen.contains(value)) {
            return value;
        }
        if (seen.size() >= MAX_VALUES) {
            return OTHER;
        }
        seen.add(value);
        return value;
    }
}
