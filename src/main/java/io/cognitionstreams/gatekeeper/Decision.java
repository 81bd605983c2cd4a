package io.cognitionstreams.gatekeeper;

import java.util.Objects;

/**
 * The gatekeeper's verdict on one call; maps onto the {@code ToolDecision} record.
 *
 * @param approved           whether the tool may run
 * @param reason             for the model and the audit log: names the tool, the skill and what was missing
 * @param requiredPermission on a permission denial, the canonical permission ({@code service:method}) the skill
 *                           lacks; null otherwise
 * @param protocol           on a permission denial, the skill's protocol (SKILL.md body), so the model re-reads its
 *                           rules at the moment it drifted from them; null otherwise
 * @param privileged         true when the configured root caller made the call: approved without a permission check,
 *                           and flagged so it gets recorded
 */
public record Decision(boolean approved, String reason, String requiredPermission, String protocol,
                       boolean privileged) {

    public Decision {
        Objects.requireNonNull(reason, "reason");
    }

    static Decision approve(String reason) {
        return new Decision(true, reason, null, null, false);
    }

    static Decision approvePrivileged(String reason) {
        return new Decision(true, reason, null, null, true);
    }

    static Decision deny(String reason) {
        return new Decision(false, reason, null, null, false);
    }

    static Decision denyWithProtocol(String reason, String requiredPermission, String protocol) {
        return new Decision(false, reason, requiredPermission, protocol, false);
    }
}
