package io.cognitionstreams.reliability;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.topics.Topics;

/**
 * Counts, read_committed, what the pipeline wrote for the requests of one run: packets, model outputs, tool calls
 * and routed blocks per channel, each by its deterministic id, so a record written twice shows up as a duplicate
 * and a record never written as missing; and every dead letter, by its key. Reads on from where it stopped, so
 * waiting for a long run stays cheap.
 */
final class Ledger implements AutoCloseable {

    private static final List<Channel> CHANNELS = List.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.DISCORD_CHAT,
            Channel.COUNCIL_CHAT, Channel.MEMORY);

    private final Topics topics;
    private final String prefix;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Integer> packets = new HashMap<>();
    // Packet ids are 8 hex digits, so across tens of thousands of requests two may collide: tool calls (which
    // name no request) are matched by session and packet id, blocks by request and block id.
    private final Map<String, String> packetOfRequest = new HashMap<>();
    private final Map<String, Integer> outputs = new HashMap<>();
    private final Map<String, Integer> callRecords = new HashMap<>();
    private final Set<String> callIds = new HashSet<>();
    private final Map<String, Integer> callsOfPacket = new HashMap<>();
    private final Map<String, Integer> blockRecords = new HashMap<>();
    private final Set<String> blockIds = new HashSet<>();
    private final Map<String, Integer> distinctBlocks = new HashMap<>();
    private final Map<String, Integer> letterCounts = new HashMap<>();
    private final Map<String, DeadLetter> firstLetters = new HashMap<>();

    /** @param run request ids of the run start with {@code run + "-"} */
    Ledger(String bootstrap, Topics topics, String run) {
        this.topics = topics;
        this.prefix = run + "-";
        consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<String> watched = new ArrayList<>(List.of(Topics.COGNITION_PACKETS, Topics.LLM_OUTPUTS,
                Topics.TOOL_CALLS, Topics.COGNITION_DLQ));
        CHANNELS.forEach(channel -> watched.add(Topics.channelTopic(channel)));
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : watched) {
            consumer.partitionsFor(topic).forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Reads every watched topic up to its current last stable offset. */
    void catchUp() {
        Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        while (ends.entrySet().stream().anyMatch(end -> consumer.position(end.getKey()) < end.getValue())) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                try {
                    count(record);
                } catch (SerializationException notOutput) {
                    // A bad record put there on purpose (the soak), not pipeline output: a missing answer would
                    // still show as missing.
                }
            }
        }
    }

    /** Reads on until every request has all it must have, or fails with what is missing after the timeout. */
    void awaitComplete(Map<String, String> promptByRequest, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            catchUp();
            if (complete(promptByRequest)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not every request answered after " + timeout + ": "
                        + verify(promptByRequest));
            }
            Thread.sleep(500);
        }
    }

    private void count(ConsumerRecord<byte[], byte[]> record) {
        String topic = record.topic();
        if (topic.equals(Topics.COGNITION_PACKETS)) {
            CognitionPacket packet = topics.packets.valueSerde().deserializer().deserialize(topic, record.value());
            if (ours(packet.getRequestId())) {
                packets.merge(packet.getRequestId(), 1, Integer::sum);
                packetOfRequest.put(packet.getRequestId(), packet.getSessionId() + "|" + packet.getMeta().getPacketId());
            }
        } else if (topic.equals(Topics.LLM_OUTPUTS)) {
            LlmOutput output = topics.llmOutputs.valueSerde().deserializer().deserialize(topic, record.value());
            if (ours(output.getRequestId())) {
                outputs.merge(output.getRequestId(), 1, Integer::sum);
            }
        } else if (topic.equals(Topics.COGNITION_DLQ)) {
            String key = new String(record.key(), StandardCharsets.UTF_8);
            letterCounts.merge(key, 1, Integer::sum);
            firstLetters.computeIfAbsent(key, k -> topics.deadLetters.valueSerde().deserializer()
                    .deserialize(topic, record.value()));
        } else if (topic.equals(Topics.TOOL_CALLS)) {
            ToolCall call = topics.toolCalls.valueSerde().deserializer().deserialize(topic, record.value());
            if (call.getSessionId() != null && ours(call.getSessionId())) {
                String packet = call.getSessionId() + "|" + call.getPacketId();
                callRecords.merge(packet, 1, Integer::sum);
                if (callIds.add(call.getSessionId() + "|" + call.getCallId())) {
                    callsOfPacket.merge(packet, 1, Integer::sum);
                }
            }
        } else {
            RoutedBlock block = topics.channel(Channel.CLI_CHAT).valueSerde().deserializer()
                    .deserialize(topic, record.value());
            if (ours(block.getRequestId())) {
                String key = block.getRequestId() + "|" + block.getChannel();
                blockRecords.merge(key, 1, Integer::sum);
                if (blockIds.add(key + "|" + block.getBlockId())) {
                    distinctBlocks.merge(key, 1, Integer::sum);
                }
            }
        }
    }

    /** Packets written for a request of this run. */
    int packets(String requestId) {
        return packets.getOrDefault(requestId, 0);
    }

    /** Dead letters keyed {@code topic-partition@offset} (any run: letters name their source, not a run). */
    int letters(String key) {
        return letterCounts.getOrDefault(key, 0);
    }

    Optional<DeadLetter> letter(String key) {
        return Optional.ofNullable(firstLetters.get(key));
    }

    private boolean ours(String id) {
        return id.startsWith(prefix);
    }

    /** Whether every request has at least what it must have (duplicates are {@link #verify}'s concern). */
    boolean complete(Map<String, String> promptByRequest) {
        return promptByRequest.entrySet().stream().allMatch(entry -> missing(entry.getKey(), entry.getValue())
                .isEmpty());
    }

    /** The requests that do not yet have all they must have. */
    List<String> incomplete(Map<String, String> promptByRequest) {
        return promptByRequest.entrySet().stream().filter(entry -> !missing(entry.getKey(), entry.getValue())
                .isEmpty()).map(Map.Entry::getKey).toList();
    }

    private List<String> missing(String request, String prompt) {
        Expected expected = Expected.forPrompt(prompt);
        List<String> missing = new ArrayList<>();
        if (packets.getOrDefault(request, 0) == 0) {
            missing.add("no packet");
        }
        if (outputs.getOrDefault(request, 0) == 0) {
            missing.add("no model output");
        }
        for (Channel channel : CHANNELS) {
            int have = distinctBlocks.getOrDefault(request + "|" + channel.id(), 0);
            if (have < expected.blocks().get(channel)) {
                missing.add(have + " of " + expected.blocks().get(channel) + " blocks on " + channel.id());
            }
        }
        int calls = packetOf(request).map(packet -> callsOfPacket.getOrDefault(packet, 0)).orElse(0);
        if (calls < expected.toolCalls()) {
            missing.add(calls + " of " + expected.toolCalls() + " tool calls");
        }
        return missing;
    }

    /** Exactly once: every expected record present, none more than once, nothing unexpected. */
    Verdict verify(Map<String, String> promptByRequest) {
        List<String> problems = new ArrayList<>();
        int exact = 0;
        int lost = 0;
        int doubled = 0;
        long records = 0;
        for (Map.Entry<String, String> entry : promptByRequest.entrySet()) {
            String request = entry.getKey();
            Expected expected = Expected.forPrompt(entry.getValue());
            List<String> wrong = new ArrayList<>(missing(request, entry.getValue()));
            if (!wrong.isEmpty()) {
                lost++;
            }
            int packetCount = packets.getOrDefault(request, 0);
            int outputCount = outputs.getOrDefault(request, 0);
            boolean more = packetCount > 1 || outputCount > 1;
            if (packetCount > 1) {
                wrong.add(packetCount + " packets");
            }
            if (outputCount > 1) {
                wrong.add(outputCount + " model outputs");
            }
            records += packetCount + outputCount;
            for (Channel channel : CHANNELS) {
                int written = blockRecords.getOrDefault(request + "|" + channel.id(), 0);
                records += written;
                more |= written > expected.blocks().get(channel);
                if (written != expected.blocks().get(channel)) {
                    wrong.add(written + " block records on " + channel.id() + ", expected "
                            + expected.blocks().get(channel));
                }
            }
            int calls = packetOf(request).map(packet -> callRecords.getOrDefault(packet, 0)).orElse(0);
            records += calls;
            if (calls != expected.toolCalls()) {
                wrong.add(calls + " tool call records, expected " + expected.toolCalls());
            }
            if (more || calls > expected.toolCalls()) {
                doubled++;
            }
            if (wrong.isEmpty()) {
                exact++;
            } else {
                problems.add(request + ": " + String.join(", ", wrong));
            }
        }
        return new Verdict(promptByRequest.size(), exact, records, problems, lost, doubled);
    }

    private Optional<String> packetOf(String request) {
        return Optional.ofNullable(packetOfRequest.get(request));
    }

    /**
     * @param exact   requests with exactly their records; {@code problems} one line per other request
     * @param lost    requests missing something they must have
     * @param doubled requests with some record more often than once, or more than they must have
     */
    record Verdict(int requests, int exact, long records, List<String> problems, int lost, int doubled) {
        boolean ok() {
            return problems.isEmpty() && exact == requests;
        }

        @Override
        public String toString() {
            return exact + " of " + requests + " requests answered exactly once (" + records + " records checked)"
                    + (problems.isEmpty() ? "" : "; " + problems.size() + " wrong, first: "
                    + problems.subList(0, Math.min(10, problems.size())));
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
