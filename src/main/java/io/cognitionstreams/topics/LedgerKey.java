package io.cognitionstreams.topics;

import java.util.Optional;

/**
 * The key of a tool.ledger entry: a call is known by its session and its call id together. Call ids alone are not
 * unique across sessions: routing derives them from 8-hex packet ids, which collide (about n²/2³³ pairs among n
 * packets), and an agent names its own calls. One partition of the ledger holds many sessions' calls, so a key of the
 * call id alone made a colliding session's call a "duplicate" that never ran, and compaction kept only one of the two
 * entries.
 *
 * <p>Written {@code <length of the session id>:<session id>:<call id>}, so that no session id or call id, whatever
 * its characters, can make one key read as another. Versions before this wrote the call id alone: {@link #parse}
 * tells those apart.
 */
public record LedgerKey(String sessionId, String callId) {

    public String text() {
        return sessionId.length() + ":" + sessionId + ":" + callId;
    }

    /** The key of {@code text}, or empty for a key written as the call id alone (or anything else). */
    public static Optional<LedgerKey> parse(String text) {
        int colon = text.indexOf(':');
        // At most 9 digits: a length that fits an int, and nothing else before the first colon.
        if (colon <= 0 || colon > 9 || !text.substring(0, colon).chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        int end = colon + 1 + Integer.parseInt(text.substring(0, colon));
        if (end >= text.length() || text.charAt(end) != ':') {
            return Optional.empty();
        }
        return Optional.of(new LedgerKey(text.substring(colon + 1, end), text.substring(end + 1)));
    }
}
