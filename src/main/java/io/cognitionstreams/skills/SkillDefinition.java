package io.cognitionstreams.skills;

import java.util.List;
import java.util.Objects;

/**
 * A skill as its SKILL.md declares it ({@link SkillParser}). {@code protocol} is the Markdown body: the rules the
 * model must follow, handed back with every denial so the model re-reads them. It is kept unrendered;
 * {@code {{ skill.name }}}-style placeholders are left for whoever renders it. {@code version} and
 * {@code description} are empty when the front matter leaves them out.
 */
public record SkillDefinition(String name, String version, String description, PermissionSet permissions,
                              List<String> requiredRefs, String protocol) {

    public SkillDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(permissions, "permissions");
        requiredRefs = List.copyOf(requiredRefs);
        Objects.requireNonNull(protocol, "protocol");
    }
}
