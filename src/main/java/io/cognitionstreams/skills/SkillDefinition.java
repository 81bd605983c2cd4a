package io.cognitionstreams.skills;

import java.util.List;
import java.util.Objects;

/**
 * A skill as its SKILL.md declares it ({@link SkillParser}). {@code protocol} is the Markdown body: the rules the
 * model must follow, handed back with every denial so the model re-reads them. It is kept unrendered;
 * {@code {{ skill.name }}}-style placeholders are left for whoever renders it. {@code version} and
 * {@code description} are empty when the front matter leaves them out. {@code retrySafe} names the tools the skill
 * declares read-only or idempotent: an executor may run those again after a crash, where any other call ends in an
 * unknown outcome rather than a second run. {@code approval} names the tools whose calls wait for the council
 * (SKILL.md {@code approval}), on top of the operator's policy ({@code gatekeeper.ApprovalRule}).
 */
public record SkillDefinition(String name, String version, String description, PermissionSet permissions,
                              List<String> requiredRefs, String protocol, PermissionSet retrySafe,
                              PermissionSet approval) {

    private static final PermissionSet NONE = PermissionSet.compile(List.of());

    /** A skill that declares no tool retry-safe and asks no approval of its own. */
    public SkillDefinition(String name, String version, String description, PermissionSet permissions,
                           List<String> requiredRefs, String protocol) {
        this(name, version, description, permissions, requiredRefs, protocol, NONE, NONE);
    }

    /** A skill that asks no approval of its own. */
    public SkillDefinition(String name, String version, String description, PermissionSet permissions,
                           List<String> requiredRefs, String protocol, PermissionSet retrySafe) {
        this(name, version, description, permissions, requiredRefs, protocol, retrySafe, NONE);
    }

    public SkillDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(permissions, "permissions");
        requiredRefs = List.copyOf(requiredRefs);
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(retrySafe, "retrySafe");
        Objects.requireNonNull(approval, "approval");
    }
}
