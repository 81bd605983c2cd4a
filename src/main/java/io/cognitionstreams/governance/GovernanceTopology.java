package io.cognitionstreams.governance;

import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.clients.ClientPrincipal;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.EventSources;
import io.cognitionstreams.topology.GlobalMirror;

/**
 * The records every instance holds as shared truth, in global stores: skills, identity and personas (governed),
 * episodic memory and the executors' tools. Here they are read as an ordinary stream task: each accepted change of a
 * skill, a persona, identity or a council role's key is a
 * {@value AuditTrail#EVENT} event with its old and new version, and each record the other capabilities' mirrors
 * skip (bytes that do not decode, a record their check refuses) is dead-lettered here, once, in this task's
 * exactly-once transaction. The mirrors run on global threads, which cannot write a letter ({@link GlobalMirror}),
 * and a topology cannot read a topic both as a global store and as a stream, so the guard is a capability of its
 * own.
 */
public final class GovernanceTopology {

    public static final String NAME = "governance";
    /** Prefix of the stores that hold the last accepted version of each governed record, one per topic. */
    public static final String VERSIONS_STORE_PREFIX = "versions-";

    private GovernanceTopology() {
    }

    public static void build(StreamsBuilder builder, Topics topics) {
        KStream<String, PipelineEvent> skills = audit(builder, topics.skills, SkillsStore::refuse,
                Skill::getVersion, skill -> Optional.empty());
        KStream<String, PipelineEvent> identity = audit(builder, topics.identity, IdentityGovernance.CHECK,
                version -> String.valueOf(version.getVersion()),
                version -> Optional.of(String.join(" and ", version.getAuthors())));
        KStream<String, PipelineEvent> personas = audit(builder, topics.personas, PersonaRules.CHECK,
                Persona::getVersion, persona -> Optional.empty());
        // A key's version is its id: what the role's messages name as their signing key.
        KStream<String, PipelineEvent> keys = audit(builder, topics.councilKeys, CouncilKeys::refuse,
                CouncilKey::getKeyId, key -> Optional.empty());
        skills.merge(identity, Named.as("governance-changes"))
                .merge(personas, Named.as("governance-persona-changes"))
                .merge(keys, Named.as("governance-key-changes"))
                .to(topics.events.name(), topics.events.produced());
        // Memories change with every THOUGHT_SEED, tools with every executor start: guarded, not audited.
        GlobalMirror.guard(builder, topics.memory, MemoryEntries::refuse);
        GlobalMirror.guard(builder, topics.tools, ToolDescriptors::refuse);
    }

    private static <V> KStream<String, PipelineEvent> audit(StreamsBuilder builder, Topic<String, V> topic,
                                                            GlobalMirror.Check<V> check,
                                                            Function<V, String> version,
                                                            Function<V, Optional<String>> approval) {
        // A store per topic, so the topics need not be co-partitioned; changelogged, so a restart still knows what
        // version each change replaces.
        String store = VERSIONS_STORE_PREFIX + topic.name();
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(store), Serdes.String(),
                Serdes.String()));
        return builder.stream(topic.name(), topic.consumed())
                .process(() -> new Audit<>(topic.name(), store, check, version, approval),
                        Named.as("audit-" + topic.name()), store);
    }

    private static final class Audit<V> implements Processor<String, V, String, PipelineEvent> {
        private final String topic;
        private final String store;
        private final GlobalMirror.Check<V> check;
        private final Function<V, String> version;
        private final Function<V, Optional<String>> approval;
        private ProcessorContext<String, PipelineEvent> context;
        private KeyValueStore<String, String> versions;

        Audit(String topic, String store, GlobalMirror.Check<V> check, Function<V, String> version,
              Function<V, Optional<String>> approval) {
            this.topic = topic;
            this.store = store;
            this.check = check;
            this.version = version;
            this.approval = approval;
        }

        @Override
        public void init(ProcessorContext<String, PipelineEvent> context) {
            this.context = context;
            versions = context.getStateStore(store);
        }

        @Override
        public void process(Record<String, V> record) {
            String key = record.key();
            if (key == null) {
                throw new InvalidRecordException("a " + topic + " record without a key: governed records are keyed");
            }
            Optional<String> before = Optional.ofNullable(versions.get(key));
            V value = record.value();
            AuditTrail.Change change;
            if (value == null) {
                check.refuseDeletion(key).ifPresent(reason -> {
                    throw new InvalidRecordException(reason);
                });
                versions.delete(key);
                change = new AuditTrail.Change(topic, key, before, Optional.empty(), Optional.empty(), writer(record));
            } else {
                check.refuse(key, value).ifPresent(reason -> {
                    throw new InvalidRecordException(reason);
                });
                String after = version.apply(value);
                versions.put(key, after);
                change = new AuditTrail.Change(topic, key, before, Optional.of(after), approval.apply(value),
                        writer(record));
            }
            context.forward(record.withKey(NAME).withValue(PipelineEvents.event(
                    EventSources.of(context).eventId(AuditTrail.EVENT), AuditTrail.EVENT, Severity.INFO,
                    PipelineEvents.Turn.NONE, change.message(), change.attributes(),
                    Instant.ofEpochMilli(record.timestamp()))));
        }

        private static Optional<String> writer(Record<String, ?> record) {
            Header header = record.headers().lastHeader(ClientPrincipal.HEADER);
            return AuditTrail.writer(header == null ? null : header.value());
        }
    }
}
