package io.cognitionstreams.gatekeeper;

import java.util.Objects;
import java.util.Optional;

import io.cognitionstreams.gatekeeper.Decision.Kind;
import io.cognitionstreams.skills.SkillDefinition;
import io.cognitionstreams.skills.ToolNames;

/**
 * Decides whether a tool call may run. Deny by default; the checks, in order, stop at the first that fails:
 * <ol>
 *   <li>The call has a session (non-blank id): the session is the caller's identity.</li>
 *   <li>The tool name is not blank ({@link ToolNames#isBlank}): nothing allows a blank name.</li>
 *   <li>A call by the configured root caller is approved, {@link Decision#privileged() privileged}: no skill
 *       or permission check applies to it, so it may call any non-blank name, as {@code *} may, well-formed
 *       ({@link ToolNames}) or not. Unless a skill has the root caller's name: then that skill's calls
 *       would be privileged too, so root calls are denied until the names differ. The registry may change while
 *       the gatekeeper runs (skills arrive on a topic), so this is checked on each root call, not once.</li>
 *   <li>The call names an active skill, the registry knows it, and the caller is that skill: a skill cannot call
 *       tools in another skill's name and borrow its permissions.</li>
 *   <li>The skill's permissions allow the tool. If not, the denial carries the permission that would allow it
 *       ({@code service:method}, or {@code *} for a name that is not well-formed) and the skill's protocol:
 *       re-anchoring.</li>
 * </ol>
 * Whichever check fails, a denial of a call that names a skill the registry knows carries that skill's protocol.
 * Stateless and thread-safe as long as the registry is.
 */
public final class Gatekeeper {

    /**
     * One tool call as the gatekeeper sees it.
     *
     * @param sessionId may be null: such a call is denied
     * @param caller    who makes the call: a skill's name, or the root caller
     * @param skill     the active skill whose permissions apply; may be null: such a call is denied
     * @param tool      {@code service.method}, {@code service:method} or {@code mcp__service__method}; under
     *                  {@code *} or for the root caller any non-blank name. May be null or blank: such a call is
     *                  denied
     */
    public record Call(String sessionId, String caller, String skill, String tool) {
        public Call {
            Objects.requireNonNull(caller, "caller");
        }
    }

    private final SkillRegistry skills;
    private final String rootCaller;

    /**
     * @param rootCaller the caller whose calls are approved unchecked; empty for none. It should be no skill's name:
     *                   while a skill has it, root calls are denied.
     * @throws IllegalArgumentException if {@code rootCaller} is blank or has surrounding whitespace
     */
    public Gatekeeper(SkillRegistry skills, Optional<String> rootCaller) {
        this.skills = Objects.requireNonNull(skills, "skills");
        this.rootCaller = requireValidRootCaller(rootCaller).orElse(null);
    }

    /**
     * Checks a root caller's name, for configuration to fail at start rather than at the first call.
     *
     * @throws IllegalArgumentException if it is blank or has surrounding whitespace
     */
    public static Optional<String> requireValidRootCaller(Optional<String> rootCaller) {
        rootCaller.ifPresent(root -> {
            if (root.isBlank() || !root.equals(root.strip())) {
                throw new IllegalArgumentException("root caller \"" + root
                        + "\" must be non-blank with no surrounding whitespace");
            }
        });
        return rootCaller;
    }

    public Optional<String> rootCaller() {
        return Optional.ofNullable(rootCaller);
    }

    /** The skill of that name, if the registry knows it: its protocol and its approval list. */
    public Optional<SkillDefinition> skill(String name) {
        return name == null || name.isBlank() ? Optional.empty() : skills.find(name);
    }

    public Decision decide(Call call) {
        String tool = call.tool();
        String caller = call.caller();
        if (call.sessionId() == null || call.sessionId().isBlank()) {
            return deny(Kind.NO_SESSION, "identity verification failed: no session (tool " + tool + ", caller \""
                    + caller + "\")", named(call));
        }
        if (ToolNames.isBlank(tool)) {
            return deny(Kind.MALFORMED_TOOL, "denied: the tool name is "
                    + (tool == null ? "missing" : "blank (\"" + tool + "\")") + " (caller \"" + caller + "\"); no "
                    + "permission allows a blank name, not even *, and neither does the root caller", named(call));
        }
        if (caller.equals(rootCaller)) {
            if (skills.find(rootCaller).isPresent()) {
                return deny(Kind.ROOT_IS_SKILL, "identity verification failed: root caller \"" + caller
                        + "\" is also a skill's name (tool " + tool + "); no call is privileged until the skill or "
                        + "the root caller is renamed", named(call));
            }
            return Decision.approvePrivileged("approved: root caller \"" + caller + "\" may call " + tool
                    + " without a permission check; privileged, recorded");
        }
        String skillName = call.skill();
        if (skillName == null || skillName.isBlank()) {
            return deny(Kind.NO_SKILL, "identity verification failed: no active skill for tool " + tool
                    + " (caller \"" + caller + "\"); only a skill, through its permissions, or the root caller may "
                    + "call tools", Optional.empty());
        }
        Optional<SkillDefinition> found = skills.find(skillName);
        if (found.isEmpty()) {
            return deny(Kind.UNKNOWN_SKILL, "identity verification failed: unknown skill \"" + skillName
                    + "\" (tool " + tool + ", caller \"" + caller + "\")", Optional.empty());
        }
        SkillDefinition skill = found.get();
        if (!caller.equals(skill.name())) {
            return deny(Kind.CALLER_MISMATCH, "identity verification failed: caller \"" + caller
                    + "\" is not the active skill \"" + skill.name() + "\" (tool " + tool + "); a skill calls tools "
                    + "only in its own name", found);
        }
        if (skill.permissions().allows(tool)) {
            return Decision.approve("approved: skill \"" + skill.name() + "\" is permitted " + tool,
                    skill.retrySafe().allows(tool));
        }
        // Not blank (checked above), so some permission allows it: service:method, or * for any other name.
        String required = skill.permissions().requiredPermission(tool).orElseThrow();
        String needs = ToolNames.split(tool)
                .map(name -> "It needs the permission " + required + " (or " + name.service() + ":*)")
                .orElseGet(() -> "\"" + tool + "\" is not a service:method tool name (" + ToolNames.problem(tool)
                        + "), so only the permission " + required + " allows it");
        return Decision.denyPermission("denied: skill \"" + skill.name() + "\" may not call " + tool + ". "
                + needs + ", which its SKILL.md does not grant; it holds: " + skill.permissions() + ". This is "
                + "outside the skill's protocol: re-read it below and continue within it.", required,
                skill.protocol());
    }

    /** The skill the call names, if the registry knows it: whatever else is wrong with the call. */
    private Optional<SkillDefinition> named(Call call) {
        return call.skill() == null || call.skill().isBlank() ? Optional.empty() : skills.find(call.skill());
    }

    /**
     * A denial that carries the protocol of the call's skill when the registry knows it. Seed 000 re-anchors the
     * model at the moment it fails, and a model that sent a blank tool name or called in another skill's name has
     * drifted from its protocol as surely as one that lacked a permission.
     */
    private static Decision deny(Kind kind, String reason, Optional<SkillDefinition> skill) {
        return skill.map(known -> Decision.deny(kind, reason + ". Re-read the protocol of skill \"" + known.name()
                        + "\" below and continue within it.", known.protocol()))
                .orElseGet(() -> Decision.deny(kind, reason, null));
    }
}
