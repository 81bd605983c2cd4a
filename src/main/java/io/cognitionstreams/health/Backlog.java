package io.cognitionstreams.health;

import java.util.Comparator;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * How many records each of the app's groups has yet to process, by input topic: the end of each partition a reader
 * of committed records sees, less the group's committed offset. Offsets, so transaction markers count too: one a
 * transaction, a few records a partition at most.
 *
 * @param byGroup group (as the log names it: the capability or worker) to input topic to records behind
 */
public record Backlog(Map<String, Map<String, Long>> byGroup) {

    public Backlog {
        byGroup = byGroup.entrySet().stream()
                .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, group -> Map.copyOf(group.getValue())));
    }

    public long total() {
        return byGroup.values().stream().flatMap(topics -> topics.values().stream()).mapToLong(Long::longValue).sum();
    }

    private static long sum(Map<String, Long> topics) {
        return topics.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The groups behind, most first, each with its topics: {@code assembly 480,000 (llm.outputs 160,000, ...)}. */
    public String describe() {
        return byGroup.entrySet().stream().filter(group -> sum(group.getValue()) > 0)
                .sorted(Comparator.comparingLong((Map.Entry<String, Map<String, Long>> group) -> sum(group.getValue()))
                        .reversed().thenComparing(Map.Entry::getKey))
                .map(group -> String.format("%s %,d (%s)", group.getKey(), sum(group.getValue()),
                        group.getValue().entrySet().stream().filter(topic -> topic.getValue() > 0)
                                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()
                                        .thenComparing(Map.Entry::getKey))
                                .map(topic -> String.format("%s %,d", topic.getKey(), topic.getValue()))
                                .collect(Collectors.joining(", "))))
                .collect(Collectors.joining("; "));
    }
}
