package io.cognitionstreams.governance;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What an accepted change of a governed record (identity, a skill, a persona, a council key) says about itself:
 * which record, from which version to which, who approved it where the record names that, and who wrote it as the
 * writer names itself. Kafka does not tell a consumer which principal wrote a record, so that name is the writer's
 * claim ({@link io.cognitionstreams.clients.ClientPrincipal}); the ACLs decide who may write at all, and the
 * broker's authorizer log holds the authenticated principal (docs/security.md).
 */
public final class AuditTrail {

    /** The event type of every accepted change on cognition.events. */
    public static final String EVENT = "GOVERNANCE_CHANGE";
    /** A writer's name is cut to this many chars: it comes from the record, so from whoever wrote it. */
    static final int MAX_WRITER_CHARS = 200;

    private AuditTrail() {
    }

    /**
     * @param topic    the governed topic
     * @param key      the record's key (skill name, the identity key)
     * @param before   the version it replaces, empty for a new record
     * @param after    the new version, empty for a deletion
     * @param approval who approved it, when the record says (identity's authors)
     * @param writer   who wrote it, as the record's writer header says
     */
    public record Change(String topic, String key, Optional<String> before, Optional<String> after,
                         Optional<String> approval, Optional<String> writer) {

        public String message() {
            String what = topic + " " + key;
            String by = writer.map(name -> ", written by " + name).orElse(", written by an unnamed writer");
            if (after.isEmpty()) {
                return what + " deleted" + before.map(version -> " (was version " + version + ")").orElse("") + by;
            }
            String change = before.map(version -> " changed from version " + version + " to " + after.get())
                    .orElseGet(() -> " added at version " + after.get());
            return what + change + approval.map(name -> ", approved by " + name).orElse("") + by;
        }

        public Map<String, String> attributes() {
            Map<String, String> attributes = new LinkedHashMap<>();
            attributes.put("topic", topic);
            attributes.put("key", key);
            before.ifPresent(version -> attributes.put("old_version", version));
            after.ifPresent(version -> attributes.put("new_version", version));
            approval.ifPresent(by -> attributes.put("approved_by", by));
            writer.ifPresent(by -> attributes.put("written_by", by));
            return attributes;
        }
    }

    /**
     * The writer a record's header names, printable and bounded; empty when there is no header or nothing
     * printable in it.
     */
    public static Optional<String> writer(byte[] header) {
        if (header == null) {
            return Optional.empty();
        }
        StringBuilder name = new StringBuilder();
        new String(header, StandardCharsets.UTF_8).codePoints()
                .filter(c -> !Character.isISOControl(c) && Character.getType(c) != Character.FORMAT)
                .limit(MAX_WRITER_CHARS)
                .forEach(name::appendCodePoint);
        String trimmed = name.toString().strip();
        return trimmed.isEmpty() ? Optional.empty() : Optional.of(trimmed);
    }
}
