package io.cognitionstreams.assembly.history;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Cuts text without splitting a character: a cut string must still encode to valid UTF-8 on the wire. */
final class TextCut {

    /** One extended grapheme cluster: a base character with its combining marks, ZWJ joins, flags, modifiers. */
    private static final Pattern GRAPHEME = Pattern.compile("\\X");

    private TextCut() {
    }

    /**
     * The longest prefix of at most {@code maxChars} UTF-16 code units that ends on a grapheme-cluster boundary,
     * hence never between the two halves of a surrogate pair nor between a base character and its marks.
     * Scans only as far as the cut, so a long text costs no more than a short one.
     */
    static String prefix(String text, int maxChars) {
        if (text.length() <= maxChars) {
            return text;
        }
        Matcher cluster = GRAPHEME.matcher(text);
        int end = 0;
        while (cluster.find() && cluster.end() <= maxChars) {
            end = cluster.end();
        }
        return text.substring(0, end);
    }
}
