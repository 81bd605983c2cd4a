package io.cognitionstreams.gatekeeper;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.EventSources;
import io.cognitionstreams.topology.Outputs;

/**
 * Gatekeeper filtering, wiring {@link GatekeeperSessions} to its topics and its store:
 * <ul>
 *   <li>tool.calls -> a decision against the active skill's permissions -> tool.decisions. An approval is signed
 *       ({@link DecisionSignatures}), so executors run nothing else. A denial carries the required permission and
 *       the skill's protocol, which the assembly puts in front of the model next (re-anchoring), and is answered at
 *       once on tool.results, since no executor will. An approved shell call also goes to channel.shell: the only
 *       way anything gets there.</li>
 *   <li>tool.outcomes -> a cognitive-load warning when the session has more active skills than the threshold ->
 *       tool.results.</li>
 *   <li>session.control -> forget a session's active skills (RESET_SKILLS) or the whole session (END_SESSION).</li>
 * </ul>
 * A session's state lives in the changelogged store {@value #ACTIVE_SKILLS_STORE}, so restarts and rebalances keep
 * it. Every denial is also a {@link DriftMetrics metric}.
 */
public final class GatekeeperTopology {

    public static final String NAME = "gatekeeper";
    public static final String ACTIVE_SKILLS_STORE = "active-skills";
    public static final String SKILLS_STORE = "skills";
    /**
     * Each session's tool results as its model saw them, by session and call id: what a replay answers with. A
     * window store, so results older than the retention are dropped with their segment, and its changelog is
     * deleted by time too; named apart from the key-value store it replaces, whose changelog it could not restore.
     */
    public static final String RESULTS_STORE = "recorded-tool-results";

    private GatekeeperTopology() {
    }

    /** @param redactor scrubs the command text of approved shell calls before channel.shell, which people read */
    public static void build(StreamsBuilder builder, Topics topics, GatekeeperSettings settings, Redactor redactor,
                             DecisionSignatures.Signer signer) {
        GatekeeperSessions sessions = new GatekeeperSessions(settings, redactor, signer);
        SkillsStore.addGlobal(builder, topics, SKILLS_STORE);
        // Changelogged, so a restart or a rebalance restores every session's active skills; cached, so a busy
        // session writes its changelog once per commit rather than once per call.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ACTIVE_SKILLS_STORE),
                Serdes.String(), topics.serde(GatekeeperSession.class)).withCachingEnabled());

        // Keyed <session>/<call id>, so a replayed call (same session) finds its original's result and END_SESSION
        // forgets a session's results with one key range; each kept under the stream time it was recorded at.
        builder.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore(RESULTS_STORE,
                settings.resultsRetention(), settings.resultsRetention(), false), Serdes.String(),
                topics.serde(ToolResult.class)));

        // All three inputs are keyed by session and share the stores, so they form one sub-topology whose task for
        // partition p owns the sessions of partition p on every topic: no repartition is needed.
        KStream<String, SpecificRecord> decided = builder
                .stream(topics.toolCalls.name(), topics.toolCalls.consumed())
                .process(() -> new Decide(sessions, settings), Named.as("decide"), ACTIVE_SKILLS_STORE,
                        RESULTS_STORE);
        KStream<String, SpecificRecord> results = builder
                .stream(topics.toolOutcomes.name(), topics.toolOutcomes.consumed())
                .process(() -> new WarnOnOverload(sessions), Named.as("warn-on-overload"),
                        ACTIVE_SKILLS_STORE, RESULTS_STORE);
        builder.stream(topics.sessionControl.name(), topics.sessionControl.consumed())
                .process(() -> new ControlSession(sessions), Named.as("control-session"),
                        ACTIVE_SKILLS_STORE, RESULTS_STORE);

        Outputs.of(decided.merge(results, Named.as("gatekeeper-output")), "out")
                .to(topics.toolDecisions)
                .to(topics.channel(Channel.SHELL))
                .to(topics.toolResults)
                .to(topics.events)
                .end();
    }

    /** The active-skills and results stores as the sessions' memory. */
    private static GatekeeperSessions.Memory memory(ProcessorContext<?, ?> context) {
        KeyValueStore<String, GatekeeperSession> store = context.getStateStore(ACTIVE_SKILLS_STORE);
        WindowStore<String, ToolResult> results = context.getStateStore(RESULTS_STORE);
        return new GatekeeperSessions.Memory() {
            @Override
            public Optional<ToolResult> result(String session, String callId) {
                try (WindowStoreIterator<ToolResult> newestFirst = results.backwardFetch(resultKey(session, callId),
                        0L, Long.MAX_VALUE)) {
                    return newestFirst.hasNext() ? Optional.of(newestFirst.next().value) : Optional.empty();
                }
            }

            @Override
            public void result(ToolResult result) {
                results.put(resultKey(result.getSessionId(), result.getCallId()), result,
                        context.currentStreamTimeMs());
            }

            @Override
            public Optional<GatekeeperSession> session(String session) {
                return Optional.ofNullable(store.get(session));
            }

            @Override
            public void session(String session, GatekeeperSession state) {
                store.put(session, state);
            }

            @Override
            public void forget(String session) {
                store.delete(session);
                List<Windowed<String>> recorded = new ArrayList<>();
                // '0' follows '/': the range is the keys that start with "<session>/".
                try (KeyValueIterator<Windowed<String>, ToolResult> range = results.fetch(resultKey(session, ""),
                        session + "0", 0L, Long.MAX_VALUE)) {
                    range.forEachRemaining(entry -> recorded.add(entry.key));
                }
                recorded.forEach(entry -> results.put(entry.key(), null, entry.window().start()));
            }
        };
    }

    private static final class Decide implements Processor<String, ToolCall, String, SpecificRecord> {
        private final GatekeeperSessions sessions;
        private final GatekeeperSettings settings;
        private ProcessorContext<String, SpecificRecord> context;
        private GatekeeperSessions.Memory memory;
        private Gatekeeper gatekeeper;
        private DriftMetrics drift;

        Decide(GatekeeperSessions sessions, GatekeeperSettings settings) {
            this.sessions = sessions;
            this.settings = settings;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = memory(context);
            gatekeeper = new Gatekeeper(new SkillRegistryStore(context.getStateStore(SKILLS_STORE)),
                    settings.rootCaller());
            drift = new DriftMetrics(context.metrics());
        }

        @Override
        public void process(Record<String, ToolCall> record) {
            GatekeeperSessions.Decided decided = sessions.decide(memory, gatekeeper, record.key(), record.value(),
                    Instant.ofEpochMilli(record.timestamp()), EventSources.of(context));
            decided.denied().ifPresent(call -> drift.recordDenial(call.getSkill(), call.getTool()));
            decided.records().forEach(out -> context.forward(record.withKey(out.key()).withValue(out.value())));
        }
    }

    private static final class WarnOnOverload implements Processor<String, ToolResult, String, SpecificRecord> {
        private final GatekeeperSessions sessions;
        private ProcessorContext<String, SpecificRecord> context;
        private GatekeeperSessions.Memory memory;

        WarnOnOverload(GatekeeperSessions sessions) {
            this.sessions = sessions;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = memory(context);
        }

        @Override
        public void process(Record<String, ToolResult> record) {
            context.forward(record.withValue(sessions.annotate(memory, record.key(), record.value())));
        }
    }

    private static final class ControlSession implements Processor<String, SessionControl, Void, Void> {
        private final GatekeeperSessions sessions;
        private GatekeeperSessions.Memory memory;

        ControlSession(GatekeeperSessions sessions) {
            this.sessions = sessions;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            memory = memory(context);
        }

        @Override
        public void process(Record<String, SessionControl> record) {
            sessions.control(memory, record.key(), record.value(), Instant.ofEpochMilli(record.timestamp()));
        }
    }

    private static String resultKey(String session, String callId) {
        return session + "/" + callId;
    }
}
