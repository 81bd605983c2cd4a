package io.cognitionstreams.skills;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.gatekeeper.PermissionSet;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.topics.Topics;

/**
 * The skills of cognition.skills as a global store, keyed by skill name: small and read by every session, so each
 * instance keeps a full copy rather than joining, and an edited skill is seen by the next record without a restart.
 * Shared by every capability that reads skills, so they all accept and refuse the same records.
 */
public final class SkillsStore {

    private static final Logger LOG = LoggerFactory.getLogger(SkillsStore.class);

    private SkillsStore() {
    }

    /** Adds the global store {@code storeName} over cognition.skills to {@code builder}. */
    public static void addGlobal(StreamsBuilder builder, Topics topics, String storeName) {
        builder.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(storeName),
                        Serdes.String(), topics.skills.valueSerde()).withLoggingDisabled(),
                topics.skills.name(), topics.skills.consumed(), () -> new Loader(storeName));
    }

    /** Keeps only well-formed skills: a bad SKILL.md must not take the running skill away. */
    private static final class Loader implements Processor<String, Skill, Void, Void> {
        private final String storeName;
        private KeyValueStore<String, Skill> store;

        Loader(String storeName) {
            this.storeName = storeName;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<String, Skill> record) {
            Skill skill = record.value();
            if (record.key() == null) {
                LOG.error("skill record without a key ignored: skills are keyed by name");
                return;
            }
            if (skill == null) {
                store.delete(record.key());
                return;
            }
            if (!record.key().equals(skill.getName())) {
                LOG.error("skill record keyed {} names skill {}: ignored, kept the previous version",
                        record.key(), skill.getName());
                return;
            }
            try {
                PermissionSet.compile(skill.getPermissions());
            } catch (IllegalArgumentException e) {
                LOG.error("skill {} ignored, kept the previous version: {}", skill.getName(), e.getMessage());
                return;
            }
            store.put(record.key(), skill);
        }
    }
}
