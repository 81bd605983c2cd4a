package io.cognitionstreams.redaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A stretch {@code [start, end)} of text that a stage wants replaced by the tag of {@code type}. */
record Hit(int start, int end, String type, int rank) {

    private static final Comparator<Hit> PRECEDENCE = Comparator.comparingInt(Hit::rank)
            .thenComparing(Comparator.comparingInt((Hit hit) -> hit.end - hit.start).reversed())
            .thenComparingInt(Hit::start);

    static Hit of(int start, int end, PiiType type) {
        return new Hit(start, end, type.name(), type.ordinal());
    }

    /**
     * Keeps the hits that win their overlaps, in text order. Lower rank wins, then the longer hit, then the earlier
     * one; a hit that overlaps an already kept one is dropped whole, so every stretch is replaced at most once.
     */
    static List<Hit> resolve(List<Hit> hits) {
        List<Hit> ordered = new ArrayList<>(hits);
        ordered.sort(PRECEDENCE);
        TreeMap<Integer, Hit> kept = new TreeMap<>();
        for (Hit hit : ordered) {
            Map.Entry<Integer, Hit> before = kept.floorEntry(hit.start);
            Map.Entry<Integer, Hit> after = kept.ceilingEntry(hit.start);
            boolean overlaps = (before != null && before.getValue().end > hit.start)
                    || (after != null && after.getKey() < hit.end);
            if (!overlaps) {
                kept.put(hit.start, hit);
            }
        }
        return new ArrayList<>(kept.values());
    }
}
