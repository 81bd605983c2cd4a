package io.cognitionstreams.skills;

import java.util.Optional;

import org.apache.kafka.streams.StreamsBuilder;

import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.topology.GlobalMirror;
import io.cognitionstreams.topics.Topics;

/**
 * The skills of cognition.skills as a global store, keyed by skill name: small and read by every session, so each
 * instance keeps a full copy rather than joining, and an edited skill is seen by the next record without a restart.
 * Shared by every capability that reads skills, so they all accept and refuse the same records.
 */
public final class SkillsStore {

    private SkillsStore() {
    }

    /** Adds the global store {@code storeName} over cognition.skills to {@code builder}. */
    public static void addGlobal(StreamsBuilder builder, Topics topics, String storeName) {
        addGlobal(builder, topics, storeName, GlobalMirror.Listener.none());
    }

    /** The same, telling {@code listener} of every skill the store applies. */
    public static void addGlobal(StreamsBuilder builder, Topics topics, String storeName,
                                 GlobalMirror.Listener<Skill> listener) {
        GlobalMirror.add(builder, topics.skills, storeName, SkillsStore::refuse, listener);
    }

    /** Why a skill record may not be used, if it may not: shared by the mirrors and the governance guard. */
    public static Optional<String> refuse(String key, Skill skill) {
        if (!key.equals(skill.getName())) {
            return Optional.of("the record keyed " + key + " names skill " + skill.getName());
        }
        try {
            PermissionSet.compile(skill.getPermissions());
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }
}
