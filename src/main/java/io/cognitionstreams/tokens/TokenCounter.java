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

    /** The longest suffix of {@code text} that fits in {@code maxTokens}, cut on a character boundary. */
    public String suffix(String text, int maxTokens) {
        if (maxTokens <= 0 || text.isEmpty()) {
            return "";
        }
        IntArrayList tokens = encoding.encodeOrdinary(text);
        if (tokens.size() <= maxTokens) {
            return text;
        }
        IntArrayList tail = new IntArrayList(maxTokens);
        for (int i = tokens.size() - maxTokens; i < tokens.size(); i++) {
            tail.add(tokens.get(i));
        }
        String decoded = encoding.decode(tail);
        // As in prefix: a multi-byte character cut at the front decodes to U+FFFD.
        int start = 0;
        while (start < decoded.length() && decoded.charAt(start) == '\uFFFD') {
            start++;
        }
        return decoded.substring(start);
    }
}
