package io.cognitionstreams.gatekeeper;

import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.skills.SkillDefinition;

/** Finds a skill by its exact name; the gatekeeper's only view of the skills. */
@FunctionalInterface
public interface SkillRegistry {

    Optional<SkillDefinition> find(String name);

    /** A fixed registry over a copy of {@code skills}, keyed by skill name. */
    static SkillRegistry of(Map<String, SkillDefinition> skills) {
        Map<String, SkillDefinition> copy = Map.copyOf(skills);
        return name -> Optional.ofNullable(copy.get(name));
    }
}
