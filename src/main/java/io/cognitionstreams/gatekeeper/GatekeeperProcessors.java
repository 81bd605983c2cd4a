package io.cognitionstreams.gatekeeper;

import java.time.Instant;
import java.util.Optional;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.PendingApproval;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.topology.EventSources;

/**
 * The processors {@link GatekeeperTopology} wires: each hands a record and the task's stores ({@link SessionsStore})
 * to {@link GatekeeperSessions}, forwards what it returns, and then each session the record changed, for
 * gatekeeper.sessions. Nothing here decides anything.
 */
final class GatekeeperProcessors {

    private GatekeeperProcessors() {
    }

    static final class Decide implements Processor<String, ToolCall, String, SpecificRecord> {
        private final GatekeeperSessions sessions;
        private final GatekeeperSettings settings;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionsStore memory;
        private Gatekeeper gatekeeper;
        private ApprovalRule.Catalog catalog;
        private DriftMetrics drift;

        Decide(GatekeeperSessions sessions, GatekeeperSettings settings) {
            this.sessions = sessions;
            this.settings = settings;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = new SessionsStore(context);
            gatekeeper = gatekeeper(context, settings);
            ReadOnlyKeyValueStore<String, ToolDescriptor> tools = context.getStateStore(
                    GatekeeperTopology.TOOLS_STORE);
            catalog = name -> Optional.ofNullable(tools.get(name))
                    .map(tool -> new ApprovalRule.ToolHints(tool.getReadOnly(), tool.getDestructive()));
            drift = new DriftMetrics(context.metrics());
        }

        @Override
        public void process(Record<String, ToolCall> record) {
            GatekeeperSessions.Decided decided = sessions.decide(memory, gatekeeper, catalog, record.key(),
                    record.value(), Instant.ofEpochMilli(record.timestamp()),
                    Instant.ofEpochMilli(context.currentSystemTimeMs()), EventSources.of(context));
            decided.denied().ifPresent(call -> drift.recordDenial(call.getSkill(), call.getTool()));
            decided.records().forEach(out -> context.forward(record.withKey(out.key()).withValue(out.value())));
            // A decision only ever updates a session (forgetting is session.control's), so never a null here.
            memory.drainChanges((session, state) -> context.forward(record.withKey(session).withValue(state)));
        }
    }

    private static Gatekeeper gatekeeper(ProcessorContext<?, ?> context, GatekeeperSettings settings) {
        return new Gatekeeper(new SkillRegistryStore(context.getStateStore(GatekeeperTopology.SKILLS_STORE)),
                settings.rootCaller());
    }

    /**
     * The council's decisions on the gatekeeper's proposals, by session (council.decisions.by-session): each decides
     * the call waiting for it. Every few seconds of wall clock, a call that has waited past the approval timeout is
     * denied (its council never decided).
     */
    static final class Settle implements Processor<String, CouncilDecision, String, SpecificRecord> {
        private final GatekeeperSessions sessions;
        private final GatekeeperSettings settings;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionsStore memory;
        private Gatekeeper gatekeeper;

        Settle(GatekeeperSessions sessions, GatekeeperSettings settings) {
            this.sessions = sessions;
            this.settings = settings;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = new SessionsStore(context);
            gatekeeper = gatekeeper(context, settings);
            context.schedule(EXPIRY_CHECK, PunctuationType.WALL_CLOCK_TIME, this::expire);
        }

        @Override
        public void process(Record<String, CouncilDecision> record) {
            forward(sessions.settle(memory, gatekeeper, record.key(), record.value(), EventSources.of(context)),
                    record.timestamp());
        }

        private void expire(long wallClock) {
            for (PendingApproval pending : memory.allPending()) {
                sessions.expire(memory, gatekeeper, pending, Instant.ofEpochMilli(wallClock))
                        .ifPresent(decided -> forward(decided, wallClock));
            }
        }

        private void forward(GatekeeperSessions.Decided decided, long timestamp) {
            decided.records().forEach(out -> context.forward(new Record<>(out.key(), out.value(), timestamp)));
            memory.drainChanges((session, state) -> context.forward(new Record<>(session, state, timestamp)));
        }
    }

    /** How often the wall clock is checked for calls that waited too long for their council. */
    static final java.time.Duration EXPIRY_CHECK = java.time.Duration.ofSeconds(5);

    static final class WarnOnOverload implements Processor<String, ToolResult, String, SpecificRecord> {
        private final GatekeeperSessions sessions;
        private ProcessorContext<String, SpecificRecord> context;
        private SessionsStore memory;

        WarnOnOverload(GatekeeperSessions sessions) {
            this.sessions = sessions;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = new SessionsStore(context);
        }

        @Override
        public void process(Record<String, ToolResult> record) {
            context.forward(record.withValue(sessions.annotate(memory, record.key(), record.value())));
            memory.drainChanges((session, state) -> context.forward(record.withKey(session).withValue(state)));
        }
    }

    /** cognition.packets: each session's recent turns, for the proposals of its calls. Forwards nothing. */
    static final class RememberTurns implements Processor<String, CognitionPacket, String, SpecificRecord> {
        private final GatekeeperSessions sessions;
        private SessionsStore memory;

        RememberTurns(GatekeeperSessions sessions) {
            this.sessions = sessions;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            memory = new SessionsStore(context);
        }

        @Override
        public void process(Record<String, CognitionPacket> record) {
            sessions.remember(memory, record.key(), record.value());
        }
    }

    /** Forwards the sessions a control record changed, a forgotten one as a tombstone. */
    static final class ControlSession implements Processor<String, SessionControl, String, GatekeeperSession> {
        private final GatekeeperSessions sessions;
        private ProcessorContext<String, GatekeeperSession> context;
        private SessionsStore memory;

        ControlSession(GatekeeperSessions sessions) {
            this.sessions = sessions;
        }

        @Override
        public void init(ProcessorContext<String, GatekeeperSession> context) {
            this.context = context;
            memory = new SessionsStore(context);
        }

        @Override
        public void process(Record<String, SessionControl> record) {
            sessions.control(memory, record.key(), record.value(), Instant.ofEpochMilli(record.timestamp()));
            memory.drainChanges((session, state) -> context.forward(record.withKey(session).withValue(state)));
        }
    }
}
