package io.cognitionstreams.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * Where each unanswered request of a stalled run stopped: hop by hop (cognition.requests, cognition.packets,
 * llm.outputs, the channels), whether its record is there read_committed, only read_uncommitted (in an aborted or
 * still open transaction) or not at all, each with its partition and offset; what the app's consumer groups have
 * committed on that partition (past the record, or not yet); and any dead letter of it. The first hop without a
 * committed record, behind an input whose offset a group committed past, is where it was lost.
 */
final class Whereabouts {

    /** A record of a request on one hop. */
    private record At(String topic, int partition, long offset) {
        TopicPartition partitionOf() {
            return new TopicPartition(topic, partition);
        }

        @Override
        public String toString() {
            return topic + "-" + partition + "@" + offset;
        }
    }

    /** Per topic, what request a record belongs to (null: not one of the run's, or undecodable). */
    private record Hop(String topic, Function<ConsumerRecord<byte[], byte[]>, String> request) {
    }

    private Whereabouts() {
    }

    /**
     * One line per request of {@code unanswered}, then the groups' committed offsets that were consulted.
     *
     * @param applicationId the app's id: its groups are {@code applicationId-<capability>} and
     *                      {@code applicationId-model-worker}
     */
    static String of(String bootstrap, Topics topics, String applicationId, Collection<String> unanswered) {
        Set<String> wanted = Set.copyOf(unanswered);
        // Tool calls name no request: matched by session and packet id, as the ledger does.
        Map<String, String> requestOfPacket = new java.util.concurrent.ConcurrentHashMap<>();
        List<Hop> hops = new ArrayList<>(List.of(
                new Hop(Topics.COGNITION_REQUESTS, r -> topics.requests.valueSerde().deserializer()
                        .deserialize(r.topic(), r.value()).getRequestId()),
                new Hop(Topics.COGNITION_PACKETS, r -> {
                    var packet = topics.packets.valueSerde().deserializer().deserialize(r.topic(), r.value());
                    requestOfPacket.put(packet.getSessionId() + "|" + packet.getMeta().getPacketId(),
                            packet.getRequestId());
                    return packet.getRequestId();
                }),
                new Hop(Topics.LLM_OUTPUTS, r -> topics.llmOutputs.valueSerde().deserializer()
                        .deserialize(r.topic(), r.value()).getRequestId())));
        for (Channel channel : Channel.values()) {
            hops.add(new Hop(Topics.channelTopic(channel), r -> topics.channel(channel).valueSerde().deserializer()
                    .deserialize(r.topic(), r.value()).getRequestId()));
        }
        Hop calls = new Hop(Topics.TOOL_CALLS, r -> {
            var call = topics.toolCalls.valueSerde().deserializer().deserialize(r.topic(), r.value());
            return requestOfPacket.get(call.getSessionId() + "|" + call.getPacketId());
        });
        Map<String, Map<String, List<At>>> committed = read(bootstrap, hops, wanted, "read_committed");
        Map<String, Map<String, List<At>>> uncommitted = read(bootstrap, hops, wanted, "read_uncommitted");
        committed.putAll(read(bootstrap, List.of(calls), wanted, "read_committed"));
        uncommitted.putAll(read(bootstrap, List.of(calls), wanted, "read_uncommitted"));
        hops.add(calls);
        Map<String, List<DeadLetter>> letters = letters(bootstrap, topics);
        Map<String, Map<TopicPartition, Long>> groups = groupOffsets(bootstrap, applicationId);

        StringBuilder report = new StringBuilder();
        for (String request : unanswered) {
            report.append(request).append(':');
            for (Hop hop : hops) {
                List<At> seen = committed.getOrDefault(hop.topic(), Map.of()).getOrDefault(request, List.of());
                List<At> all = uncommitted.getOrDefault(hop.topic(), Map.of()).getOrDefault(request, List.of());
                boolean optional = hop.topic().startsWith(Topics.CHANNEL_PREFIX) || hop == calls;
                if (optional && all.isEmpty()) {
                    continue;
                }
                report.append("\n    ").append(hop.topic()).append(": ");
                if (all.isEmpty()) {
                    report.append("none, not even read_uncommitted");
                    continue;
                }
                for (At at : all) {
                    report.append(at).append(seen.contains(at) ? " committed" : " NOT committed (aborted or open)");
                    report.append(consumers(groups, at)).append(lettersOf(letters, at)).append("; ");
                }
            }
            report.append('\n');
        }
        report.append("committed offsets consulted: ").append(groups);
        return report.toString();
    }

    /** Per hop topic, per request of {@code wanted}, where its records are, read to the end once. */
    private static Map<String, Map<String, List<At>>> read(String bootstrap, List<Hop> hops, Set<String> wanted,
                                                         String isolation) {
        Map<String, Map<String, List<At>>> found = new HashMap<>();
        Map<String, Hop> byTopic = new HashMap<>();
        hops.forEach(hop -> byTopic.put(hop.topic(), hop));
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, isolation)) {
            readAll(consumer, byTopic.keySet(), record -> {
                String request;
                try {
                    request = byTopic.get(record.topic()).request().apply(record);
                } catch (RuntimeException notOurs) {
                    return;
                }
                if (request != null && wanted.contains(request)) {
                    found.computeIfAbsent(record.topic(), t -> new HashMap<>())
                            .computeIfAbsent(request, r -> new ArrayList<>())
                            .add(new At(record.topic(), record.partition(), record.offset()));
                }
            });
        }
        return found;
    }

    /** Dead letters (read_committed) by the key of the record they refused. */
    private static Map<String, List<DeadLetter>> letters(String bootstrap, Topics topics) {
        Map<String, List<DeadLetter>> letters = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, "read_committed")) {
            readAll(consumer, List.of(Topics.COGNITION_DLQ), record -> {
                try {
                    DeadLetter letter = topics.deadLetters.valueSerde().deserializer().deserialize(record.topic(),
                            record.value());
                    letters.computeIfAbsent(Topics.deadLetterKey(letter.getSourceTopic(),
                            letter.getSourcePartition(), letter.getSourceOffset()), k -> new ArrayList<>()).add(letter);
                } catch (RuntimeException notALetter) {
                    // not the pipeline's
                }
            });
        }
        return letters;
    }

    private static void readAll(KafkaConsumer<byte[], byte[]> consumer, Collection<String> topics,
                                java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> each) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            consumer.partitionsFor(topic).forEach(info -> partitions.add(new TopicPartition(topic,
                    info.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ends.entrySet().stream().anyMatch(end -> consumer.position(end.getKey()) < end.getValue())
                && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(each);
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String isolation) {
        return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Each of the app's groups' committed offsets. */
    private static Map<String, Map<TopicPartition, Long>> groupOffsets(String bootstrap, String applicationId) {
        Map<String, Map<TopicPartition, Long>> offsets = new TreeMap<>();
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            for (GroupListing group : admin.listGroups().all().get(30, TimeUnit.SECONDS)) {
                if (!group.groupId().startsWith(applicationId + "-")) {
                    continue;
                }
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group.groupId())
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                Map<TopicPartition, Long> of = new LinkedHashMap<>();
                committed.forEach((tp, offset) -> {
                    if (offset != null) {
                        of.put(tp, offset.offset());
                    }
                });
                offsets.put(group.groupId().substring(applicationId.length() + 1), of);
            }
        } catch (Exception e) {
            offsets.put("(unknown: " + e + ")", Map.of());
        }
        return offsets;
    }

    /** Which groups committed on the record's partition, and whether past it. */
    private static String consumers(Map<String, Map<TopicPartition, Long>> groups, At at) {
        StringBuilder by = new StringBuilder();
        groups.forEach((group, offsets) -> {
            Long next = offsets.get(at.partitionOf());
            if (next != null) {
                by.append(by.length() == 0 ? ", read by " : ", ").append(group).append(" committed to ").append(next)
                        .append(next > at.offset() ? " (past it)" : " (NOT past it)");
            }
        });
        return by.toString();
    }

    private static String lettersOf(Map<String, List<DeadLetter>> letters, At at) {
        List<DeadLetter> of = letters.getOrDefault(Topics.deadLetterKey(at.topic(), at.partition(), at.offset()),
                List.of());
        if (of.isEmpty()) {
            return "";
        }
        List<String> reasons = of.stream().map(l -> l.getErrorKind() + " by " + l.getApplicationId() + "/" + l.getProcessor() + ": "
                + l.getReason()).toList();
        return ", DEAD-LETTERED " + reasons;
    }
}
