package io.cognitionstreams.tokens;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.IntArrayList;

/**
 * Counts and cuts text in one model encoding's tokens. Thread-safe: jtokkit encodings are immutable.
 *
 * <p>Long texts' counts are cached: most of a packet (identity, persona, skill protocol, the whole rendered system
 * prompt) is the same text turn after turn, and counting it again would cost more than the rest of the assembly.
 */
public final class TokenCounter {

    /** Shorter texts are counted directly: hashing them costs about as much as counting. */
    static final int CACHED_FROM_CHARS = 200;
    static final int CACHE_ENTRIES = 4096;

    private final Encoding encoding;
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();

    TokenCounter(Encoding encoding) {
        this.encoding = encoding;
    }

    public String encodingName() {
        return encoding.getName();
    }

    /** Special-token text (e.g. "&lt;|endoftext|&gt;") is counted as ordinary text: prompts are data, not control. */
    public int count(String text) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        if (text.length() < CACHED_FROM_CHARS) {
            return encoding.countTokensOrdinary(text);
        }
        Integer cached = counts.get(text);
        if (cached != null) {
            return cached;
        }
        int tokens = encoding.countTokensOrdinary(text);
        if (counts.size() >= CACHE_ENTRIES) {
            // Crude but bounded: the texts worth caching come back within a few turns and are re-cached.
            counts.clear();
        }
        counts.put(text, tokens);
        return tokens;
    }

    /** The longest prefix of {@code text} that fits in {@code maxTokens}, cut on a character boundary. */
    public String prefix(String text, int maxTokens) {
        return cut(text, maxTokens, true);
    }

    /** The longest suffix of {@code text} that fits in {@code maxTokens}, cut on a character boundary. */
    public String suffix(String text, int maxTokens) {
        return cut(text, maxTokens, false);
    }

    private String cut(String text, int maxTokens, boolean head) {
        if (maxTokens <= 0 || text.isEmpty()) {
            return "";
        }
        IntArrayList tokens = encoding.encodeOrdinary(text);
        if (tokens.size() <= maxTokens) {
            return text;
        }
        IntArrayList kept = new IntArrayList(maxTokens);
        for (int i = head ? 0 : tokens.size() - maxTokens; kept.size() < maxTokens; i++) {
            kept.add(tokens.get(i));
        }
        String decoded = encoding.decode(kept);
        // A token boundary can fall inside a multi-byte character; the decoder then yields U+FFFD at the cut.
        int from = 0;
        int to = decoded.length();
        while (head && to > 0 && decoded.charAt(to - 1) == '\uFFFD') {
            to--;
        }
        while (!head && from < to && decoded.charAt(from) == '\uFFFD') {
            from++;
        }
        return decoded.substring(from, to);
    }
}
