package io.cognitionstreams.governance;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What an accepted change of a governed record (identity, a skill) says about itself: which record, from which
 * version to which, and who approved it where the record names that. Kafka does not tell a consumer which
 * principal wrote a record, so the writer is only known through ACLs on the topic (docs/security.md).
 */
public final class AuditTrail {

    /** The event type of every accepted change on cognition.events. */
    public static final String EVENT = "GOVERNANCE_CHANGE";

    private AuditTrail() {
    }

    /**
     * @param topic    the governed topic
     * @param key      the record's key (skill name, the identity key)
     * @param before   the version it replaces, empty for a new record
     * @param after    the new version, empty for a deletion
     * @param approval who approved it, when the record says (identity's authors)
     */
    public record Change(String topic, String key, Optional<String> before, Optional<String> after,
                         Optional<String> approval) {

        public String message() {
            String what = topic + " " + key;
            if (after.isEmpty()) {
                return what + " deleted" + before.map(version -> " (was version " + version + ")").orElse("");
            }
            String change = before.map(version -> " changed from version " + version + " to " + after.get())
                    .orElseGet(() -> " added at version " + after.get());
            return what + change + approval.map(by -> ", approved by " + by).orElse("");
        }

        public Map<String, String> attributes() {
            Map<String, String> attributes = new LinkedHashMap<>();
            attributes.put("topic", topic);
            attributes.put("key", key);
            before.ifPresent(version -> attributes.put("old_version", version));
            after.ifPresent(version -> attributes.put("new_version", version));
            approval.ifPresent(by -> attributes.put("approved_by", by));
            return attributes;
        }
    }
}
