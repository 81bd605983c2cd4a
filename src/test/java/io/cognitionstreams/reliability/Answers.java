package io.cognitionstreams.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Reads the channels read_committed from their end at creation, noting when the first answer (routed block) of a
 * request at or after a given number arrives, and per partition: channels are keyed by session like the requests,
 * so a channel partition answers the sessions of the request partition with the same number. Reconnects within
 * 100 ms of a broker's return, so the figures are the app's.
 */
final class Answers implements AutoCloseable {

    private static final List<Channel> CHANNELS = List.of(Channel.CLI_CHAT, Channel.WEB_CHAT,
            Channel.DISCORD_CHAT, Channel.COUNCIL_CHAT, Channel.MEMORY, Channel.SHELL);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Topic<String, RoutedBlock> blocks;
    private final String prefix;
    private final Map<Integer, Long> firstByPartition = new TreeMap<>();
    private long watchedFrom;
    private long lastAnswered;

    Answers(String bootstrap, Topics topics, String run) {
        this.blocks = topics.channel(Channel.CLI_CHAT);
        this.prefix = run + "-";
        consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 100),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (Channel channel : CHANNELS) {
            String topic = Topics.channelTopic(channel);
            consumer.partitionsFor(topic).forEach(info -> partitions.add(new TopicPartition(topic,
                    info.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    /**
     * Reads what arrived in the next 50 ms: whether a block of a request numbered {@code first} or later is among
     * it, the first such arrival then kept as {@link #lastAnswered}. Also notes, per partition, the first arrival
     * of such a block since {@code first} changed ({@link #firstByPartition}).
     */
    boolean answeredFrom(long first) {
        if (first != watchedFrom) {
            watchedFrom = first;
            firstByPartition.clear();
        }
        boolean answered = false;
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
            RoutedBlock block = blocks.valueSerde().deserializer().deserialize(record.topic(), record.value());
            String request = block.getRequestId();
            if (request.startsWith(prefix) && Long.parseLong(request.substring(prefix.length())) >= first) {
                long now = System.nanoTime();
                firstByPartition.putIfAbsent(record.partition(), now);
                if (!answered) {
                    lastAnswered = now;
                    answered = true;
                }
            }
        }
        return answered;
    }

    /** When ({@link System#nanoTime()}) the last {@link #answeredFrom} that returned true saw its answer. */
    long lastAnswered() {
        return lastAnswered;
    }

    /** Per partition, when its first answer to a request at or after the last {@code first} asked for arrived. */
    Map<Integer, Long> firstByPartition() {
        return Map.copyOf(firstByPartition);
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(1));
    }
}
