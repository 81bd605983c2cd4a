package io.cognitionstreams.redaction;

import java.util.Objects;

/**
 * Redacts a text that arrives in pieces (a model's answer as it streams) so that what it releases, put together,
 * is exactly what {@link Redactor#redact} makes of the whole text: no finding is ever split between two releases,
 * and nothing goes out in clear that a later piece could still make part of a finding. Not thread-safe: one per
 * text.
 *
 * <p>The text not yet released is held. Once enough has arrived, it is cut after a blank (space, tab or line end)
 * at least {@link #HOLD} characters before its end, and the part before the cut is released, redacted on its own,
 * if redacting the two parts on their own gives what redacting the held text whole gives: then no finding known so
 * far crosses the cut, and none can start before it and reach past what has arrived, because
 * <ul>
 *   <li>the findings that hold no blank (addresses, keys, tokens, URLs, words) cannot cross a cut after a blank;</li>
 *   <li>those that can (cards and IBANs in groups, phone numbers, a credential's key, blanks and value, a
 *       configured rule across words) are shorter than {@code HOLD}, or are already found in what has arrived;</li>
 *   <li>a private key's BEGIN line without its END line takes everything after it (the next END line of its label,
 *       however far on, closes it), so nothing is cut after such a line until its END line arrives.</li>
 * </ul>
 * What a configured rule matches across blanks over more than {@code HOLD} characters, and that only a later piece
 * completes, can be released in clear before it is complete (docs/redaction.md, "Streamed text").
 */
public final class StreamingRedactor {

    /**
     * What a cut leaves held behind it: more than the longest built-in finding that can hold a blank (an IBAN in
     * groups of four, 42 characters; a card or a phone number with spaces) and what its scanner reads past it.
     */
    static final int HOLD = 64;
    /** How much more must arrive before the next cut is tried: a try redacts the held text three to five times. */
    static final int STEP = 32;

    private final Redactor redactor;
    private final StringBuilder held = new StringBuilder();
    private int tryAt = HOLD + STEP;

    public StreamingRedactor(Redactor redactor) {
        this.redactor = Objects.requireNonNull(redactor, "redactor");
    }

    /** Takes the next piece of the text; returns what may be released now, redacted, often nothing. */
    public String append(CharSequence piece) {
        held.append(piece);
        return held.length() < tryAt ? "" : cut();
    }

    /** The text is complete: returns the rest, redacted. */
    public String finish() {
        String rest = held.isEmpty() ? "" : redactor.redact(held.toString()).text();
        held.setLength(0);
        tryAt = HOLD + STEP;
        return rest;
    }

    /** Characters held back so far. */
    public int held() {
        return held.length();
    }

    private String cut() {
        String text = held.toString();
        int limit = text.length() - HOLD;
        NormalizedView view = NormalizedView.of(text);
        int open = SecretScanner.openPrivateKey(view.text());
        if (open >= 0) {
            limit = Math.min(limit, view.originalStart(open));
        }
        int cut = afterLastBlank(text, limit);
        String whole = null;
        // The last blank first; failing that, the last line end before it, which fewer findings cross.
        for (int attempt = 0; attempt < 2 && cut > 0; attempt++) {
            if (whole == null) {
                whole = redactor.redact(text).text();
            }
            String head = redactor.redact(text.substring(0, cut)).text();
            if (whole.startsWith(head)
                    && redactor.redact(text.substring(cut)).text().equals(whole.substring(head.length()))) {
                held.delete(0, cut);
                tryAt = held.length() + STEP;
                return head;
            }
            cut = afterLastLineEnd(text, cut - 1);
        }
        // Nothing to cut at (one long token, an open private key): try again once the text has grown by half, so
        // that a long held text costs no more than a few redactions of itself in all.
        tryAt = text.length() + Math.max(STEP, text.length() / 2);
        return "";
    }

    /** The position right after the last blank before {@code limit} (at most {@code limit}), 0 when none. */
    private static int afterLastBlank(String text, int limit) {
        for (int i = Math.min(limit, text.length()) - 1; i >= 0; i--) {
            char c = text.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n') {
                return i + 1;
            }
        }
        return 0;
    }

    /** The position right after the last line end before {@code limit}, 0 when none. */
    private static int afterLastLineEnd(String text, int limit) {
        return limit <= 0 ? 0 : text.lastIndexOf('\n', limit - 1) + 1;
    }
}
