package io.cognitionstreams.gatekeeper;

import java.time.Instant;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import io.cognitionstreams.schema.GatekeeperSession;
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
        private DriftMetrics drift;

        Decide(GatekeeperSessions sessions, GatekeeperSettings settings) {
            this.sessions = sessions;
            this.settings = settings;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            memory = new SessionsStore(context);
            gatekeeper = new Gatekeeper(new SkillRegistryStore(context.getStateStore(
                    GatekeeperTopology.SKILLS_STORE)), settings.rootCaller());
            drift = new DriftMetrics(context.metrics());
        }

        @Override
        public void process(Record<String, ToolCall> record) {
            GatekeeperSessions.Decided decided = sessions.decide(memory, gatekeeper, record.key(), record.value(),
                    Instant.ofEpochMilli(record.timestamp()), EventSources.of(context));
            decided.denied().ifPresent(call -> drift.recordDenial(call.getSkill(), call.getTool()));
            decided.records().forEach(out -> context.forward(record.withKey(out.key()).withValue(out.value())));
            // A decision only ever updates a session (forgetting is session.control's), so never a null here.
            memory.drainChanges((session, state) -> context.forward(record.withKey(session).withValue(state)));
        }
    }

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
