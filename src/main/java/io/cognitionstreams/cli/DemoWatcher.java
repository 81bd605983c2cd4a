package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.app.Demo;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.assembly.SessionBudgets;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionUsage;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Sends the demo traffic and prints what comes out of the pipeline: every channel topic, tool.calls and the
 * dead-letter topic, read_committed, as a user of the app would see them.
 */
final class DemoWatcher {

    private static final int TEXT_WIDTH = 110;

    private final Settings settings;
    private final Topics topics;
    private final PrintWriter out;

    DemoWatcher(Settings settings, Topics topics, PrintWriter out) {
        this.settings = settings;
        this.topics = topics;
        this.out = out;
    }

    /**
     * @param timeout null to watch until the process stops; otherwise how long to wait for every demo request to
     *                be fully routed and the malformed record to be dead-lettered
     * @return whether everything expected arrived
     */
    boolean run(Instant now, Duration timeout) {
        List<CognitionRequest> requests = Demo.requests(now);
        Set<String> pending = new HashSet<>();
        requests.forEach(request -> pending.add(request.getSessionId()));
        Set<String> requested = Set.copyOf(pending);
        boolean autoContinues = settings.executor().enabled() && settings.executor().autoContinueSteps() > 0;
        boolean letterSeen = false;
        Set<String> undecided = new HashSet<>();
        // A session with tool results takes one more turn on its own (auto-continue): wait for its answer too,
        // unless a session budget stopped it (run --session-*-budget).
        Set<String> continuing = new HashSet<>();
        Set<String> overBudget = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> consumer = watchFromEnd();
             KafkaProducer<byte[], byte[]> producer = producer()) {
            Topic<String, CognitionRequest> in = topics.requests;
            for (CognitionRequest request : requests) {
                producer.send(new ProducerRecord<>(in.name(), bytes(request.getSessionId()),
                        in.valueSerde().serializer().serialize(in.name(), request)));
            }
            producer.send(new ProducerRecord<>(in.name(), bytes(Demo.MALFORMED_KEY), Demo.malformed()));
            producer.flush();
            out.printf("sent %d demo requests and 1 malformed record to %s%n", requests.size(), in.name());
            out.flush();
            long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
            long quietSince = System.nanoTime();
            while (System.nanoTime() < deadline) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    quietSince = System.nanoTime();
                    Object value = decode(record);
                    if (value instanceof CouncilMessage message && message.getType() != CouncilMessageType.PROPOSAL
                            && message.getType() != CouncilMessageType.VOTE) {
                        continue; // heartbeats and the council's ticks: not what the demo shows
                    }
                    if (value instanceof SessionUsage usage) {
                        if (usage.getOverBudget() != null) {
                            String session = new String(record.key(), StandardCharsets.UTF_8);
                            overBudget.add(session);
                            continuing.remove(session);
                            out.println(String.format("%-22s %-14s stopped: it has spent %s", record.topic(),
                                    session, usage.getOverBudget()));
                        }
                        continue;
                    }
                    out.println(format(record.topic(), value));
                    if (value instanceof RoutedBlock block && block.getSequence() == block.getBlockCount() - 1) {
                        pending.remove(block.getSessionId());
                        continuing.remove(block.getSessionId());
                    }
                    if (value instanceof ToolResult result && autoContinues && requested.contains(
                            result.getSessionId()) && !overBudget.contains(result.getSessionId())) {
                        continuing.add(result.getSessionId());
                    }
                    if (value instanceof DeadLetter letter && letter.getSourceTopic().equals(in.name())) {
                        letterSeen = true;
                    }
                    if (value instanceof ToolCall call) {
                        undecided.add(call.getCallId());
                    }
                    if (value instanceof ToolDecision decision && decision.getVerdict() != Verdict.PENDING) {
                        undecided.remove(decision.getCall().getCallId());
                    }
                }
                out.flush();
                boolean complete = pending.isEmpty() && letterSeen && undecided.isEmpty() && continuing.isEmpty();
                if (timeout != null && complete && System.nanoTime() - quietSince > Duration.ofSeconds(1).toNanos()) {
                    return true;
                }
            }
            return false;
        }
    }

    private Object decode(ConsumerRecord<byte[], byte[]> record) {
        try {
            return topics.byName(record.topic()).orElseThrow().valueSerde().deserializer()
                    .deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            return "undecodable value: " + e.getMessage();
        }
    }

    static String format(String topic, Object value) {
        String label = String.format("%-22s", topic);
        if (value instanceof RoutedBlock block) {
            return String.format("%s %-14s %d/%d %-12s %s", label, block.getSessionId(), block.getSequence() + 1,
                    block.getBlockCount(), block.getMarker(), oneLine(block.getText()));
        }
        if (value instanceof ToolCall call) {
            return String.format("%s %-14s %s %s (skill %s)", label, call.getSessionId(), call.getTool(),
                    oneLine(call.getArguments()), call.getSkill());
        }
        if (value instanceof ToolDecision decision) {
            return String.format("%s %-14s %s %s: %s", label, decision.getCall().getSessionId(),
                    decision.getVerdict(), decision.getCall().getTool(), oneLine(decision.getReason()));
        }
        if (value instanceof ToolResult result) {
            return String.format("%s %-14s %s %s by %s: %s", label, result.getSessionId(), result.getStatus(),
                    result.getTool(), result.getExecutor(), oneLine(result.getSuccess() ? String.valueOf(
                            result.getText()) : String.valueOf(result.getError())));
        }
        if (value instanceof CouncilMessage message && message.getType() == CouncilMessageType.VOTE) {
            return String.format("%s %-14s VOTE %s %s on %s: %s", label, message.getCouncilId(), message.getSender(),
                    message.getVote(), message.getProposalId(), oneLine(message.getContent()));
        }
        if (value instanceof CouncilMessage message) {
            return String.format("%s %-14s %s %s from %s (risk %s): %s", label, message.getCouncilId(),
                    message.getType(), message.getMsgId(), message.getSender(), message.getRiskLevel(),
                    oneLine(message.getContent().lines().filter(line -> line.startsWith("arguments (")).findFirst()
                            .orElse(message.getContent())));
        }
        if (value instanceof CouncilDecision decision) {
            return String.format("%s %-14s %s %s (%d yes, %d no, %d abstain): %s", label, decision.getCouncilId(),
                    decision.getOutcome(), decision.getProposalId(), decision.getYes(), decision.getNo(),
                    decision.getAbstain(), oneLine(decision.getReason()));
        }
        if (value instanceof DeadLetter letter) {
            return String.format("%s %s-%d@%d %s: %s", label, letter.getSourceTopic(), letter.getSourcePartition(),
                    letter.getSourceOffset(), letter.getErrorKind(), oneLine(letter.getReason()));
        }
        return label + " " + value;
    }

    private static String oneLine(String text) {
        return oneLine(text, TEXT_WIDTH);
    }

    /** {@code text} on one line of at most {@code width} characters: line breaks shown as ⏎, the rest cut with …. */
    static String oneLine(String text, int width) {
        String flat = text.replace("\n", " ⏎ ");
        return flat.length() <= width ? flat : flat.substring(0, width - 1) + "…";
    }

    private KafkaConsumer<byte[], byte[]> watchFromEnd() {
        Properties props = new Properties();
        props.putAll(settings.clientConfig());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<String> watched = new ArrayList<>();
        for (Channel channel : Channel.values()) {
            watched.add(Topics.channelTopic(channel));
        }
        watched.add(Topics.TOOL_CALLS);
        watched.add(Topics.TOOL_DECISIONS);
        watched.add(Topics.COUNCIL_MESSAGES);
        watched.add(Topics.COUNCIL_DECISIONS);
        watched.add(Topics.TOOL_RESULTS);
        watched.add(Topics.COGNITION_DLQ);
        if (!settings.budgets().equals(SessionBudgets.NONE)) {
            watched.add(Topics.SESSION_USAGE);
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : watched) {
            for (PartitionInfo info : consumer.partitionsFor(topic)) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        // seekToEnd is lazy: resolve positions now, before the demo traffic is sent.
        partitions.forEach(consumer::position);
        return consumer;
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Map<String, Object> config = settings.clientConfig();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
