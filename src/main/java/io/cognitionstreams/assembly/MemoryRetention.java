package io.cognitionstreams.assembly;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How much episodic memory a scope keeps: at most {@code maxEntries} entries, none written longer than
 * {@code maxAge} ago. Without a bound memory grows for ever, and with it every search of the scope and the store of
 * the task that holds it. What is over the bound is forgotten by that task, with a tombstone on cognition.memory,
 * oldest first, and compaction removes it from the topic.
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
    /** Entries the sweep looks at each time, per task: a task holding a million goes round in under two hours. */
    public static final int SWEEP_ENTRIES = 10_000;

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
     * What of {@code shelf}'s scope is over the bound at {@code now}, oldest first: its entries too old, and the
     * oldest beyond the count. Judged as each entry is kept, so a scope is never over its count for longer than a
     * write.
     */
    List<String> over(Shelf shelf, Instant now) {
        if (!bounded()) {
            return List.of();
        }
        return shelf.overBound(maxEntries == 0 ? Integer.MAX_VALUE : maxEntries, writtenBefore(now));
    }

    /** Whether an entry written at {@code writtenAt} is past the age bound at {@code now}. */
    public boolean tooOld(Instant writtenAt, Instant now) {
        return !maxAge.isZero() && writtenAt.toEpochMilli() < writtenBefore(now);
    }

    private long writtenBefore(Instant now) {
        return maxAge.isZero() ? Long.MIN_VALUE : now.minus(maxAge).toEpochMilli();
    }
}
