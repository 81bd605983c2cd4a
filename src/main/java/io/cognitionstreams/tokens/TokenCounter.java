package io.cognitionstreams.tokens;

import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.IntArrayList;

/** Counts and cuts text in one model encoding's tokens. Thread-safe: jtokkit encodings are immutable. */
public final class TokenCounter {

    private final Encoding encoding;

    TokenCounter(Encoding encoding) {
        this.encoding = encoding;
    }

    public String encodingName() {
        return encoding.getName();
    }

    /** Special-token text (e.g. "&lt;|endoftext|&gt;") is counted as ordinary text: prompts are data, not control. */
    public int count(String text) {
        return text == null || text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
    }

    /** The longest prefix of {@code text} that fits in {@code maxTokens}, cut on a character boundary. */
    public String prefix(String text, int maxTokens) {
        if (maxTokens <= 0 || text.isEmpty()) {
            return "";
        }
        IntArrayList tokens = encoding.encodeOrdinary(text);
        if (tokens.size() <= maxTokens) {
            return text;
        }
        IntArrayList head = new IntArrayList(maxTokens);
        for (int i = 0; i < maxTokens; i++) {
            head.add(tokens.get(i));
        }
        String decoded = encoding.decode(head);
        // A token boundary can fall inside a multi-byte character; the decoder then yields U+FFFD. Drop it.
        int end = decoded.length();
        while (end > 0 && decoded.charAt(end - 1) == '\uFFFD') {
            end--;
        }
        return decoded.substring(0, end);
    }
}
