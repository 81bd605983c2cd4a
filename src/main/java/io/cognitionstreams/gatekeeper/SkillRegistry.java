package io.cognitionstreams.gatekeeper;

import java.util.Map;
import java.util.Optional;

/** Finds a skill by its exact name; the gatekeeper's only view of the skills. */
@FunctionalInterface
public interface SkillRegistry {

    Optional<Skill> find(String name);

    /** A fixed registry over a copy of {@code skills}, keyed by skill name. */
    static SkillRegistry of(Map<String, Skill> skills) {
        Map<String, Skill> copy = Map.copyOf(skills);
        return name -> Optional.ofNullable(copy.get(name));
    }
}
