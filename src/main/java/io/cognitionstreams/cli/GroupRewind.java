package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * Moves a consumer group's committed offsets to the first record at or after a time ({@code listOffsets} by
 * timestamp, then {@code alterConsumerGroupOffsets}); a partition with nothing that late goes to its end. Only an
 * inactive group: its consumers would overwrite the offsets with their own. `cognition rewind` does it, and
 * `cognition run --rewind-to-time` before the app's consumers start, which on the embedded broker is the only moment
 * the app's own groups are inactive while the broker is up.
 */
final class GroupRewind {

    private final Admin admin;
    private final PrintWriter out;
    private final PrintWriter err;

    GroupRewind(Admin admin, PrintWriter out, PrintWriter err) {
        this.admin = admin;
        this.out = out;
        this.err = err;
    }

    /** The instant {@code text} names, or empty once {@code err} says why. */
    static Optional<Instant> time(String option, String text, PrintWriter err) {
        try {
            return Optional.of(Instant.parse(text));
        } catch (DateTimeParseException e) {
            err.println("error: " + option + " '" + text + "' is not an ISO-8601 instant such as 2026-11-22T10:00:00Z");
            return Optional.empty();
        }
    }

    /**
     * @param topics only these topics; null for every partition the group has offsets for
     * @return 0 once rewound (each partition's move on {@code out}); 1 when the group is active or has no offsets
     */
    int rewind(String group, Instant time, List<String> topics) throws ExecutionException, InterruptedException {
        ConsumerGroupDescription description = describe(group);
        if (active(description)) {
            err.printf("error: consumer group %s is active (%s, %d member%s): stop its consumers before rewinding "
                    + "it%n", group, description.groupState(), description.members().size(),
                    description.members().size() == 1 ? "" : "s");
            return 1;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = new TreeMap<>(
                Comparator.comparing(TopicPartition::toString));
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().forEach((partition, offset) -> {
            if (offset != null && (topics == null || topics.contains(partition.topic()))) {
                committed.put(partition, offset);
            }
        });
        if (committed.isEmpty()) {
            err.println("error: consumer group " + group + " has no committed offsets"
                    + (topics == null ? "" : " on " + String.join(", ", topics)));
            return 1;
        }
        Map<TopicPartition, OffsetAndMetadata> rewound = new HashMap<>();
        Map<TopicPartition, OffsetSpec> atTime = new HashMap<>();
        committed.keySet().forEach(partition -> atTime.put(partition, OffsetSpec.forTimestamp(time.toEpochMilli())));
        Map<TopicPartition, OffsetSpec> atEnd = new HashMap<>();
        admin.listOffsets(atTime).all().get().forEach((partition, info) -> {
            if (info.offset() < 0) {
                atEnd.put(partition, OffsetSpec.latest());
            } else {
                rewound.put(partition, new OffsetAndMetadata(info.offset()));
            }
        });
        if (!atEnd.isEmpty()) {
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(atEnd).all().get();
            ends.forEach((partition, info) -> rewound.put(partition, new OffsetAndMetadata(info.offset())));
        }
        admin.alterConsumerGroupOffsets(group, rewound).all().get();
        committed.forEach((partition, before) -> out.printf("%s: %d -> %d%n", partition, before.offset(),
                rewound.get(partition).offset()));
        out.printf("rewound consumer group %s to %s on %d partition%s%n", group, time, rewound.size(),
                rewound.size() == 1 ? "" : "s");
        out.flush();
        return 0;
    }

    /**
     * As {@link #rewind}, once the group has no members, waiting up to {@code wait} for them to go. A Kafka Streams
     * instance does not leave its group when it closes, and a restarted broker keeps the members it knew until their
     * session times out, so a group of the app's previous run is active for seconds after the app has stopped.
     */
    int rewindOnceInactive(String group, Instant time, Duration wait)
            throws ExecutionException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        ConsumerGroupDescription description = describe(group);
        if (active(description)) {
            err.printf("waiting up to %d s for consumer group %s's %d member%s of a previous run to time out%n",
                    wait.toSeconds(), group, description.members().size(),
                    description.members().size() == 1 ? "" : "s");
            err.flush();
        }
        while (active(description) && System.nanoTime() < deadline) {
            Thread.sleep(500);
            description = describe(group);
        }
        return rewind(group, time, null);
    }

    private ConsumerGroupDescription describe(String group) throws ExecutionException, InterruptedException {
        return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
    }

    private static boolean active(ConsumerGroupDescription description) {
        GroupState state = description.groupState();
        return !description.members().isEmpty() || (state != GroupState.EMPTY && state != GroupState.DEAD);
    }
}
