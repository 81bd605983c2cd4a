package io.cognitionstreams.gatekeeper;

import java.util.Locale;
import java.util.Objects;

/**
 * The gatekeeper's verdict on one call; maps onto the {@code ToolDecision} record.
 *
 * @param kind               which check decided: approval, privileged approval, or the check that failed
 * @param reason             for the model and the audit log: names the tool, the skill and what was missing
 * @param requiredPermission on a permission denial, the canonical permission the skill lacks: {@code service:method},
 *                           or {@code *} for a name that is not a well-formed tool name; null otherwise
 * @param protocol           on a denial of a call whose skill the registry knows, whatever the check that failed, the
 *                           skill's protocol (SKILL.md body), so the model re-reads its rules at the moment it
 *                           drifted from them; null otherwise
 * @param retrySafe          on an approval, the skill declares the tool read-only or idempotent (SKILL.md
 *                           {@code retry_safe}), so an executor may run it again after a crash
 */
public record Decision(Kind kind, String reason, String requiredPermission, String protocol, boolean retrySafe) {

    /** What decided a call; every kind but the first two is a denial. */
    public enum Kind {
        APPROVED(true),
        /** The configured root caller: approved without a permission check, and recorded. */
        PRIVILEGED(true),
        NO_SESSION(false),
        /** The tool name is blank: nothing allows it (other names that are not well-formed are PERMISSION denials). */
        MALFORMED_TOOL(false),
        /** The caller is the root caller, but a skill of that name exists: no call is privileged while it does. */
        ROOT_IS_SKILL(false),
        NO_SKILL(false),
        UNKNOWN_SKILL(false),
        CALLER_MISMATCH(false),
        /** The skill lacks the permission: the one denial that carries the permission it would need. */
        PERMISSION(false),
        /** The call needed the council's approval and did not get it (rejected, expired, no quorum, no answer). */
        COUNCIL(false);

        private final boolean approved;

        Kind(boolean approved) {
            this.approved = approved;
        }

        /** Lower-case name, for event attributes and metric tags. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Decision {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
    }

    /** Whether the tool may run. */
    public boolean approved() {
        return kind.approved;
    }

    /** True when the configured root caller made the call: approved unchecked, and flagged so it gets recorded. */
    public boolean privileged() {
        return kind == Kind.PRIVILEGED;
    }

    static Decision approve(String reason, boolean retrySafe) {
        return new Decision(Kind.APPROVED, reason, null, null, retrySafe);
    }

    static Decision approvePrivileged(String reason) {
        return new Decision(Kind.PRIVILEGED, reason, null, null, false);
    }

    /** @param protocol the protocol of the call's skill, or null when the call names no skill the registry knows */
    static Decision deny(Kind kind, String reason, String protocol) {
        return new Decision(kind, reason, null, protocol, false);
    }

    static Decision denyPermission(String reason, String requiredPermission, String protocol) {
        return new Decision(Kind.PERMISSION, reason, requiredPermission, protocol, false);
    }
}
