package io.cognitionstreams.assembly;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * How much episodic memory a scope keeps: at most {@code maxEntries} entries, none written longer than
 * {@code maxAge} ago. Without a bound memory grows for ever, and with it every search (exact: a scan of the scope)
 * and every instance's heap, since every instance holds every entry. What is over the bound is forgotten with a
 * tombstone on cognition.memory, oldest first, so every instance's global store and index drop it, and compaction
 * removes it from the topic.
 *
 * @param maxEntries entries a scope keeps, counting repeated texts; 0 keeps any number
 * @param maxAge     how long an entry is kept after it was written; zero keeps entries of any age
 */
public record MemoryRetention(int maxEntries, Duration maxAge) {

    /** Ten thousand entries: an exact search of them costs about 1.5 ms, less than embedding the prompt. */
    public static final int DEFAULT_MAX_ENTRIES = 10_000;
    public static final String DEFAULT_MAX_AGE = "90d";
    /** How often the sweep looks for entries that aged past the bound, which no write would find. */
    public static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

    public MemoryRetention {
        if (maxEntries < 0) {
            throw new IllegalArgumentException("memory max entries must be 0 (no bound) or more, was " + maxEntries);
        }
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("memory max age must be zero (no bound) or more, was " + maxAge);
        }
    }

    public static MemoryRetention defaults() {
        return new MemoryRetention(DEFAULT_MAX_ENTRIES, Duration.ofDays(90));
    }

    /** Whether anything is ever forgotten: the sweep runs only then. */
    public boolean bounded() {
        return maxEntries > 0 || !maxAge.isZero();
    }

    /**
     * What to forget as entry {@code id} is written into {@code scope}: the scope's entries too old at {@code now},
     * and the oldest beyond what leaves room for the new one. The index does not hold the new entry yet (the global
     * store loads it after the write), so it is counted here; an entry it already holds there replaces itself.
     */
    public List<String> onWrite(MemoryIndex index, String scope, String id, Instant now) {
        boolean replaces = index.scopeOf(id).filter(scope::equals).isPresent();
        return over(index, scope, replaces ? 0 : 1, now);
    }

    /** Every scope's entries over the bound at {@code now}, scope by scope in name order. */
    public List<String> sweep(MemoryIndex index, Instant now) {
        List<String> over = new ArrayList<>();
        index.scopes().stream().sorted().forEach(scope -> over.addAll(over(index, scope, 0, now)));
        return over;
    }

    private List<String> over(MemoryIndex index, String scope, int incoming, Instant now) {
        if (!bounded()) {
            return List.of();
        }
        int keep = maxEntries == 0 ? Integer.MAX_VALUE : maxEntries - incoming;
        long writtenBefore = maxAge.isZero() ? Long.MIN_VALUE : now.minus(maxAge).toEpochMilli();
        return index.overBound(scope, keep, writtenBefore);
    }
}
