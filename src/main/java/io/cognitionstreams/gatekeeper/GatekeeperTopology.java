package io.cognitionstreams.gatekeeper;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.redaction.Redaction;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.schema.GatekeeperDenial;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.Utf8;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.skills.ToolNames;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Gatekeeper filtering, a thin layer over {@link Gatekeeper}:
 * <ul>
 *   <li>tool.calls -> a decision against the active skill's permissions -> tool.decisions. A denial carries the
 *       required permission and the skill's protocol, which the assembly puts in front of the model next
 *       (re-anchoring). An approved shell call also goes to channel.shell: the only way anything gets there.</li>
 *   <li>tool.outcomes -> a cognitive-load warning when the session has more active skills than the threshold ->
 *       tool.results.</li>
 *   <li>session.control -> forget a session's active skills (RESET_SKILLS) or the whole session (END_SESSION).</li>
 * </ul>
 * A session's active skills, counters and recent denials live in the changelogged store {@value #ACTIVE_SKILLS_STORE},
 * so restarts and rebalances keep them. Every denial is a {@value #DRIFT} event and a {@link DriftMetrics metric};
 * a root caller's call is a {@value #PRIVILEGED_CALL} event; the call that first puts a session over the threshold is
 * a {@value #COGNITIVE_OVERLOAD} event.
 */
public final class GatekeeperTopology {

    public static final String NAME = "gatekeeper";
    public static final String ACTIVE_SKILLS_STORE = "active-skills";
    public static final String SKILLS_STORE = "skills";
    /** Bigger arguments are refused: a decision carries the call and the skill's protocol in one record. */
    public static final int MAX_ARGUMENT_BYTES = 256 * 1024;
    /** Denials kept per session for `cognition gatekeeper`; older ones only count. */
    public static final int RECENT_DENIALS = 20;

    public static final String DRIFT = "DRIFT";
    public static final String PRIVILEGED_CALL = "PRIVILEGED_CALL";
    public static final String COGNITIVE_OVERLOAD = "COGNITIVE_OVERLOAD";

    /** Routing names its calls {@code <output_id>#<block sequence>}; the shell block keeps that lineage. */
    private static final Pattern ROUTED_CALL_ID = Pattern.compile("(.+)#(\\d{1,9})");
    private static final String SHELL_TOOL = canonical(OutputRouter.SHELL_TOOL);
    private static final ObjectMapper JSON = new ObjectMapper();

    private GatekeeperTopology() {
    }

    /**
     * @param redactor scrubs the command text of approved shell calls before channel.shell, which people and logs
     *                 read; executors run the exact approved command from tool.decisions
     */
    public static void build(StreamsBuilder builder, Topics topics, GatekeeperSettings settings, Redactor redactor) {
        SkillsStore.addGlobal(builder, topics, SKILLS_STORE);
        // Changelogged, so a restart or a rebalance restores every session's active skills; cached, so a busy
        // session writes its changelog once per commit rather than once per call.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ACTIVE_SKILLS_STORE),
                Serdes.String(), topics.serde(GatekeeperSession.class)).withCachingEnabled());

        // All three inputs are keyed by session and share the store, so they form one sub-topology whose task for
        // partition p owns the sessions of partition p on every topic: no repartition is needed.
        KStream<String, SpecificRecord> decided = builder
                .stream(topics.toolCalls.name(), topics.toolCalls.consumed())
                .process(() -> new Decide(settings, redactor), Named.as("decide"), ACTIVE_SKILLS_STORE);
        KStream<String, SpecificRecord> results = builder
                .stream(topics.toolOutcomes.name(), topics.toolOutcomes.consumed())
                .process(() -> new WarnOnOverload(settings), Named.as("warn-on-overload"), ACTIVE_SKILLS_STORE);
        builder.stream(topics.sessionControl.name(), topics.sessionControl.consumed())
                .process(ControlSession::new, Named.as("control-session"), ACTIVE_SKILLS_STORE);

        BranchedKStream<String, SpecificRecord> out = decided.merge(results, Named.as("gatekeeper-output"))
                .split(Named.as("out-"));
        sendTo(out, topics.toolDecisions);
        sendTo(out, topics.channel(Channel.SHELL));
        sendTo(out, topics.toolResults);
        sendTo(out, topics.events);
        out.noDefaultBranch();
    }

    /** Each output topic takes one record type, so the type picks the topic. */
    private static <V extends SpecificRecord> void sendTo(BranchedKStream<String, SpecificRecord> out,
                                                          Topic<String, V> topic) {
        Class<V> type = topic.valueType();
        out.branch((session, record) -> type.isInstance(record), Branched.withConsumer(records -> records
                .mapValues(record -> type.cast(record), Named.as("as-" + topic.name()))
                .to(topic.name(), topic.produced()), topic.name()));
    }

    /** A record for a session must be keyed by it: otherwise it reaches the task that does not own its state. */
    private static void requireKeyedBySession(Record<String, ?> record, String session, String topic) {
        if (!session.equals(record.key())) {
            throw new InvalidRecordException("a " + topic + " record of session \"" + session + "\" is keyed \""
                    + record.key() + "\"; key it by its session id");
        }
    }

    private static String canonical(String tool) {
        int delimiter = ToolNames.delimiter(tool);
        return delimiter < 0 ? tool : ToolNames.canonical(tool, delimiter);
    }

    /** Decides each call, keeps the session's state, and reports drift, privileged calls and overload. */
    private static final class Decide implements Processor<String, ToolCall, String, SpecificRecord> {
        private final GatekeeperSettings settings;
        private final Redactor redactor;
        private final CognitiveLoad load;
        private ProcessorContext<String, SpecificRecord> context;
        private KeyValueStore<String, GatekeeperSession> sessions;
        private Gatekeeper gatekeeper;
        private DriftMetrics drift;

        Decide(GatekeeperSettings settings, Redactor redactor) {
            this.settings = settings;
            this.redactor = redactor;
            this.load = settings.load();
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            sessions = context.getStateStore(ACTIVE_SKILLS_STORE);
            gatekeeper = new Gatekeeper(new SkillRegistryStore(context.getStateStore(SKILLS_STORE)),
                    settings.rootCaller());
            drift = new DriftMetrics(context.metrics());
        }

        @Override
        public void process(Record<String, ToolCall> record) {
            if (record.value() == null) {
                throw new InvalidRecordException("tool call is null (tombstones are not calls)");
            }
            // An agent may write a secret into a call; the decision, which is what executes, never carries it.
            ToolCall call = withoutSecrets(record.value());
            if (call.getCallId().isBlank()) {
                throw new InvalidRecordException("tool call has an empty call_id: its decision could not be matched "
                        + "to it");
            }
            long argumentBytes = Utf8.length(call.getArguments());
            if (argumentBytes > MAX_ARGUMENT_BYTES) {
                throw new InvalidRecordException("tool call arguments have " + argumentBytes + " bytes, over the "
                        + "limit of " + MAX_ARGUMENT_BYTES + ": a decision carries them with the skill's protocol");
            }
            // A call without a session is denied below, and has no session state to keep.
            String session = call.getSessionId() == null || call.getSessionId().isBlank() ? null
                    : call.getSessionId();
            if (session != null) {
                requireKeyedBySession(record, session, Topics.TOOL_CALLS);
            }
            Decision decision = gatekeeper.decide(new Gatekeeper.Call(call.getSessionId(), call.getCaller(),
                    call.getSkill(), call.getTool()));
            Instant now = Instant.ofEpochMilli(record.timestamp());
            // Built before the state changes: a call that cannot run is dead-lettered with nothing half-done.
            RoutedBlock shell = decision.approved() && canonical(call.getTool()).equals(SHELL_TOOL)
                    ? shellBlock(call, redactor.redact(shellCommand(call))) : null;
            List<String> newlyOverloaded = session != null ? remember(session, call, decision, now) : null;

            context.forward(record.withValue(ToolDecision.newBuilder()
                    .setCall(call)
                    .setVerdict(decision.approved() ? Verdict.APPROVED : Verdict.DENIED)
                    .setReason(decision.reason())
                    .setRequiredPermission(decision.requiredPermission())
                    .setProtocol(decision.protocol())
                    .setTimestamp(now)
                    .build()));
            if (shell != null) {
                context.forward(record.withValue(shell));
            }
            // Events are keyed by session, or by the component when the call has none.
            Record<String, ToolCall> events = record.withKey(session != null ? session : NAME);
            if (!decision.approved()) {
                drift.recordDenial(call.getSkill(), call.getTool());
                Map<String, String> attributes = callAttributes(call);
                attributes.put("kind", decision.kind().label());
                if (decision.requiredPermission() != null) {
                    attributes.put("required_permission", decision.requiredPermission());
                }
                context.forward(events.withValue(event(call, DRIFT, decision.reason(), attributes, now)));
            }
            if (decision.privileged()) {
                context.forward(events.withValue(event(call, PRIVILEGED_CALL, decision.reason(),
                        callAttributes(call), now)));
            }
            if (newlyOverloaded != null) {
                Map<String, String> attributes = new LinkedHashMap<>();
                attributes.put("active_skills", String.join(",", newlyOverloaded));
                attributes.put("count", String.valueOf(newlyOverloaded.size()));
                attributes.put("threshold", String.valueOf(load.threshold()));
                context.forward(events.withValue(event(call, COGNITIVE_OVERLOAD,
                        CognitiveLoad.warning(newlyOverloaded.size(), load.threshold()), attributes, now)));
            }
        }

        /**
         * Counts the call in the session's state; an approved call by a skill activates it (a denied call used
         * nothing, and the root caller is no skill). Returns the active skills if this call put the session over
         * the threshold, else null.
         */
        private List<String> remember(String session, ToolCall call, Decision decision, Instant now) {
            GatekeeperSession state = sessions.get(session);
            // Built, not a bare builder: a builder leaves unset fields null instead of their defaults.
            GatekeeperSession.Builder next = GatekeeperSession.newBuilder(state != null ? state
                    : GatekeeperSession.newBuilder().setUpdated(now).build());
            ActiveSkills active = ActiveSkills.restore(settings.rootCaller(), next.getActiveSkills());
            boolean wasOverloaded = load.overloaded(active.count());
            if (decision.privileged()) {
                next.setApprovedCalls(next.getApprovedCalls() + 1).setPrivilegedCalls(next.getPrivilegedCalls() + 1);
            } else if (decision.approved()) {
                next.setApprovedCalls(next.getApprovedCalls() + 1);
                active.activate(call.getSkill());
            } else {
                List<GatekeeperDenial> denials = new ArrayList<>(next.getRecentDenials());
                denials.add(GatekeeperDenial.newBuilder()
                        .setCallId(call.getCallId())
                        .setTool(call.getTool())
                        .setSkill(call.getSkill())
                        .setKind(decision.kind().label())
                        .setReason(decision.reason())
                        .setRequiredPermission(decision.requiredPermission())
                        .setTimestamp(now)
                        .build());
                next.setDeniedCalls(next.getDeniedCalls() + 1)
                        .setRecentDenials(new ArrayList<>(denials.subList(
                                Math.max(0, denials.size() - RECENT_DENIALS), denials.size())));
            }
            List<String> skills = active.skills();
            sessions.put(session, next.setActiveSkills(skills).setOverloadThreshold(load.threshold())
                    .setUpdated(now).build());
            return !wasOverloaded && load.overloaded(skills.size()) ? skills : null;
        }

        private static Map<String, String> callAttributes(ToolCall call) {
            Map<String, String> attributes = new LinkedHashMap<>();
            attributes.put("tool", call.getTool());
            attributes.put("caller", call.getCaller());
            if (call.getSkill() != null) {
                attributes.put("skill", call.getSkill());
            }
            return attributes;
        }

        private static PipelineEvent event(ToolCall call, String type, String message, Map<String, String> attributes,
                                           Instant now) {
            return PipelineEvent.newBuilder()
                    .setEventId(call.getCallId() + "-" + type.toLowerCase(Locale.ROOT))
                    .setType(type)
                    .setSeverity(Severity.WARN)
                    .setSessionId(call.getSessionId())
                    .setPacketId(call.getPacketId())
                    .setMessage(message)
                    .setAttributes(attributes)
                    .setTimestamp(now)
                    .build();
        }

        private static ToolCall withoutSecrets(ToolCall call) {
            Redaction arguments = Redactor.secretsInArguments(call.getArguments());
            return arguments.total() == 0 ? call
                    : ToolCall.newBuilder(call).setArguments(arguments.text()).build();
        }

        /** The EXECUTE block an approved shell call runs, with the lineage the call carries. */
        private static RoutedBlock shellBlock(ToolCall call, Redaction command) {
            Matcher routed = ROUTED_CALL_ID.matcher(call.getCallId());
            boolean fromRouting = routed.matches();
            return RoutedBlock.newBuilder()
                    .setBlockId(call.getCallId())
                    .setOutputId(fromRouting ? routed.group(1) : call.getCallId())
                    .setPacketId(call.getPacketId() != null ? call.getPacketId() : "")
                    .setRequestId(call.getRequestId() != null ? call.getRequestId() : "")
                    .setSessionId(call.getSessionId())
                    .setMarker(Marker.EXECUTE)
                    .setSequence(fromRouting ? Integer.parseInt(routed.group(2)) : 0)
                    .setBlockCount(call.getBlockCount())
                    .setChannel(Channel.SHELL.id())
                    .setText(command.text())
                    .setRedactions(command.counts())
                    .setTimestamp(call.getTimestamp())
                    .build();
        }

        private static String shellCommand(ToolCall call) {
            JsonNode command;
            try {
                JsonNode arguments = JSON.readTree(call.getArguments());
                command = arguments == null ? null : arguments.get("command");
            } catch (JsonProcessingException e) {
                command = null;
            }
            if (command == null || !command.isTextual() || command.textValue().isBlank()) {
                String arguments = call.getArguments();
                throw new InvalidRecordException("approved " + call.getTool() + " call has no command to run: "
                        + "arguments must be a JSON object with a non-empty \"command\" string, got "
                        + (arguments.length() <= 200 ? arguments : arguments.substring(0, 200) + "..."));
            }
            return command.textValue();
        }
    }

    /** Puts the cognitive-load warning into a successful result of an overloaded session. */
    private static final class WarnOnOverload implements Processor<String, ToolResult, String, SpecificRecord> {
        private final GatekeeperSettings settings;
        private final CognitiveLoad load;
        private ProcessorContext<String, SpecificRecord> context;
        private KeyValueStore<String, GatekeeperSession> sessions;

        WarnOnOverload(GatekeeperSettings settings) {
            this.settings = settings;
            this.load = settings.load();
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            sessions = context.getStateStore(ACTIVE_SKILLS_STORE);
        }

        @Override
        public void process(Record<String, ToolResult> record) {
            ToolResult result = record.value();
            if (result == null) {
                throw new InvalidRecordException("tool outcome is null (tombstones are not results)");
            }
            if (result.getSessionId().isBlank() || result.getCallId().isBlank()) {
                throw new InvalidRecordException("tool outcome has an empty session_id or call_id");
            }
            requireKeyedBySession(record, result.getSessionId(), Topics.TOOL_OUTCOMES);
            context.forward(record.withValue(annotated(result)));
        }

        /** A failed result is about the call, not the session's load: it passes unchanged, as does a calm one. */
        private ToolResult annotated(ToolResult result) {
            GatekeeperSession state = sessions.get(result.getSessionId());
            int active = state == null ? 0
                    : ActiveSkills.restore(settings.rootCaller(), state.getActiveSkills()).count();
            if (!result.getSuccess() || !load.overloaded(active)) {
                return result;
            }
            String warning = CognitiveLoad.warning(active, load.threshold());
            ToolResult.Builder annotated = ToolResult.newBuilder(result).setCognitiveLoadWarning(warning);
            if (result.getText() != null) {
                annotated.setText(ResultAnnotator.annotateText(result.getText(), warning));
            }
            if (result.getJson() != null) {
                annotated.setJson(ResultAnnotator.annotateJson(result.getJson(), warning).json());
            }
            return annotated.build();
        }
    }

    /** RESET_SKILLS empties the active skills (the load), keeping counters and denials; END_SESSION forgets all. */
    private static final class ControlSession implements Processor<String, SessionControl, Void, Void> {
        private KeyValueStore<String, GatekeeperSession> sessions;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            sessions = context.getStateStore(ACTIVE_SKILLS_STORE);
        }

        @Override
        public void process(Record<String, SessionControl> record) {
            SessionControl control = record.value();
            if (control == null) {
                throw new InvalidRecordException("session control record is null (tombstones are not commands)");
            }
            String session = control.getSessionId();
            if (session.isBlank()) {
                throw new InvalidRecordException("session control record has an empty session_id");
            }
            requireKeyedBySession(record, session, Topics.SESSION_CONTROL);
            switch (control.getAction()) {
                case RESET_SKILLS -> {
                    GatekeeperSession state = sessions.get(session);
                    if (state != null) {
                        sessions.put(session, GatekeeperSession.newBuilder(state).setActiveSkills(List.of())
                                .setUpdated(Instant.ofEpochMilli(record.timestamp())).build());
                    }
                }
                case END_SESSION -> sessions.delete(session);
            }
        }
    }
}
