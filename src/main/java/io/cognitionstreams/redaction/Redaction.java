package io.cognitionstreams.redaction;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The scrubbed text and how many tags of each type went into it. Types are {@link PiiType} names,
 * {@code POLICY:<rule>} and {@code PROFANITY}; the map is sorted by type and holds no zero counts.
 */
public record Redaction(String text, Map<String, Integer> counts) {

    public Redaction {
        Objects.requireNonNull(text, "text");
        counts = Collections.unmodifiableMap(new TreeMap<>(counts));
    }

    public int count(String type) {
        return counts.getOrDefault(type, 0);
    }

    public int total() {
        int total = 0;
        for (int count : counts.values()) {
            total += count;
        }
        return total;
    }
}
