package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "rewind", mixinStandardHelpOptions = true,
        description = {"Moves a consumer group's committed offsets to the first record at or after a time, so its "
                + "consumers reprocess from there (a partition with nothing that late goes to its end).",
                "The group must be inactive: stop its consumers first. A Kafka Streams capability's group is "
                        + "<application-id>-<capability>; its state stores are not rewound (docs/timetravel.md)."})
final class RewindCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--group", required = true, description = "Consumer group to rewind.")
    String group;

    @Option(names = "--to-time", required = true, paramLabel = "ISO-8601",
            description = "The time to rewind to, e.g. 2026-11-22T10:00:00Z.")
    String toTime;

    @Option(names = "--topic", paramLabel = "TOPIC",
            description = "Only these topics (repeatable). Default: every partition the group has offsets for.")
    List<String> topics;

    @Override
    public Integer call() throws InterruptedException, ExecutionException {
        PrintWriter err = spec.commandLine().getErr();
        Instant time;
        try {
            time = Instant.parse(toTime);
        } catch (DateTimeParseException e) {
            err.println("error: --to-time '" + toTime + "' is not an ISO-8601 instant such as 2026-11-22T10:00:00Z");
            return 2;
        }
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).describedGroups()
                    .get(group).get();
            GroupState state = description.groupState();
            if (!description.members().isEmpty() || (state != GroupState.EMPTY && state != GroupState.DEAD)) {
                err.printf("error: consumer group %s is active (%s, %d member%s): stop its consumers before "
                                + "rewinding it%n", group, state, description.members().size(),
                        description.members().size() == 1 ? "" : "s");
                return 1;
            }
            Map<TopicPartition, OffsetAndMetadata> committed = new TreeMap<>(
                    Comparator.comparing(TopicPartition::toString));
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            offsets.forEach((partition, offset) -> {
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
            committed.keySet().forEach(partition ->
                    atTime.put(partition, OffsetSpec.forTimestamp(time.toEpochMilli())));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> found = admin.listOffsets(atTime).all().get();
            Map<TopicPartition, OffsetSpec> atEnd = new HashMap<>();
            found.forEach((partition, info) -> {
                if (info.offset() < 0) {
                    atEnd.put(partition, OffsetSpec.latest());
                } else {
                    rewound.put(partition, new OffsetAndMetadata(info.offset()));
                }
            });
            if (!atEnd.isEmpty()) {
                admin.listOffsets(atEnd).all().get().forEach((partition, info) ->
                        rewound.put(partition, new OffsetAndMetadata(info.offset())));
            }
            admin.alterConsumerGroupOffsets(group, rewound).all().get();
            PrintWriter out = spec.commandLine().getOut();
            committed.forEach((partition, before) -> out.printf("%s: %d -> %d%n", partition, before.offset(),
                    rewound.get(partition).offset()));
            out.printf("rewound consumer group %s to %s on %d partition%s%n", group, time, rewound.size(),
                    rewound.size() == 1 ? "" : "s");
            out.flush();
            return 0;
        }
    }
}
