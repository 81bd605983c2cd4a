package io.cognitionstreams.gatekeeper;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The skills one session has used, in the order first used: the measure of its cognitive load. The root caller is
 * never counted: it is an operator, not a set of rules the model has to hold. Its simple form, for a state store, is
 * {@link #skills()}, read back with {@link #restore}. Mutable and not thread-safe: one instance per session, owned
 * by whoever processes that session's calls.
 */
public final class ActiveSkills {

    private final String rootCaller;
    private final Set<String> skills = new LinkedHashSet<>();

    /** @param rootCaller the configured root caller, never counted; empty for none */
    public ActiveSkills(Optional<String> rootCaller) {
        this.rootCaller = rootCaller.orElse(null);
    }

    /** Rebuilds the state from its {@link #skills()} form; the root caller is dropped if the list holds it. */
    public static ActiveSkills restore(Optional<String> rootCaller, List<String> skills) {
        ActiveSkills active = new ActiveSkills(rootCaller);
        skills.forEach(active::activate);
        return active;
    }

    /** Records that the session used {@code skill}; true if it was not active yet. The root caller is ignored. */
    public boolean activate(String skill) {
        Objects.requireNonNull(skill, "skill");
        return !skill.equals(rootCaller) && skills.add(skill);
    }

    public int count() {
        return skills.size();
    }

    /** The active skills in the order first activated. */
    public List<String> skills() {
        return List.copyOf(skills);
    }

    /** Forgets every active skill, for session cleanup or when the model is told to start over. */
    public void reset() {
        skills.clear();
    }
}
