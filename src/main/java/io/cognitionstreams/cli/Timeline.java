package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.routing.MarkerParser;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.security.TenantBinding;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * A session's past as Kafka holds it: its checkpoints (compacted cognition.checkpoints) and its requests
 * (cognition.requests, the timeline), read_committed up to where the topics end when the command starts, without
 * a consumer group; and re-sent requests: a replay in one transaction (sent whole or not at all), a fork turn by
 * turn.
 */
final class Timeline {

    private final ClusterOptions cluster;
    private final Topics topics;

    Timeline(ClusterOptions cluster) {
        this.cluster = cluster;
        this.topics = cluster.topics();
    }

    /** The latest checkpoints of each of {@code sessions}, in sequence order; sessions without any map to empty. */
    Map<String, List<Checkpoint>> checkpoints(Collection<String> sessions) {
        Map<String, Map<String, Checkpoint>> byKey = new HashMap<>();
        sessions.forEach(session -> byKey.put(session, new HashMap<>()));
        readToEnd(topics.checkpoints, Optional.empty(), record -> {
            String key = key(record);
            String session = key == null || key.lastIndexOf('/') < 0 ? null : key.substring(0, key.lastIndexOf('/'));
            Map<String, Checkpoint> latest = byKey.get(session);
            if (latest == null) {
                return;
            }
            if (record.value() == null) {
                latest.remove(key);
            } else {
                latest.put(key, decode(topics.checkpoints, record));
            }
        });
        Map<String, List<Checkpoint>> result = new LinkedHashMap<>();
        sessions.forEach(session -> result.put(session, byKey.get(session).values().stream()
                .sorted(Comparator.comparingInt(Checkpoint::getSequence)).toList()));
        return result;
    }

    List<Checkpoint> checkpoints(String session) {
        return checkpoints(List.of(session)).get(session);
    }

    /**
     * The session's requests in offset order: from the first record at or after {@code from} in each partition
     * (offsetsForTimes), or from the beginning. Records that do not decode were dead-lettered and are skipped. A
     * tenant's session ({@code <tenant>.<name>}) also has its originals on the tenant's requests topic, where only
     * what the topic vouches for counts (TenantBinding); the two topics' records are merged by timestamp, each in
     * its own offset order, the shared topic's first at equal times.
     */
    List<CognitionRequest> requests(String session, Optional<Instant> from) {
        List<Timed> shared = requests(Topics.COGNITION_REQUESTS, session, from);
        int dot = session.indexOf('.');
        List<Timed> tenant = dot > 0 && Principals.validName(session.substring(0, dot))
                ? tenantRequests(Topics.tenantRequests(session.substring(0, dot)), session, from) : List.of();
        List<CognitionRequest> merged = new ArrayList<>(shared.size() + tenant.size());
        int i = 0;
        int j = 0;
        while (i < shared.size() || j < tenant.size()) {
            boolean fromShared = j == tenant.size()
                    || i < shared.size() && shared.get(i).timestamp() <= tenant.get(j).timestamp();
            merged.add(fromShared ? shared.get(i++).request() : tenant.get(j++).request());
        }
        return merged;
    }

    private record Timed(long timestamp, CognitionRequest request) {
    }

    /**
     * What the session's tenant's topic holds of it. A session named like a tenant's that is not one has no such
     * topic: that reads as empty, and so does a refusal, as the app may describe only the topics it has (those of
     * the tenants it runs with).
     */
    private List<Timed> tenantRequests(String topic, String session, Optional<Instant> from) {
        try {
            return requests(topic, session, from);
        } catch (TopicAuthorizationException e) {
            return List.of();
        }
    }

    private List<Timed> requests(String topic, String session, Optional<Instant> from) {
        byte[] key = session.getBytes(StandardCharsets.UTF_8);
        List<Timed> requests = new ArrayList<>();
        TopicReader.readToEnd(cluster.clientConfig(), topic, from, record -> {
            if (record.value() != null && Arrays.equals(record.key(), key)) {
                try {
                    CognitionRequest request = topics.requests.valueSerde().deserializer().deserialize(topic,
                            record.value());
                    if (TenantBinding.isBound(topic, request)) {
                        requests.add(new Timed(record.timestamp(), request));
                    }
                } catch (RuntimeException e) {
                    // Refused on its way in: the assembly dead-lettered it, and a replay skips it too.
                }
            }
        });
        return requests;
    }

    /** Sends {@code requests} keyed by session in one transaction, with a progress line every {@code every}. */
    void send(List<CognitionRequest> requests, String verb, int every, PrintWriter err) {
        Transactions.sendAll(cluster.clientConfig(), verb, requests.stream().map(this::record).toList(),
                sent -> progress(verb, sent, requests.size(), every, err));
    }

    /**
     * Sends {@code requests} one turn at a time: after each of {@code answered}, waits (at most {@code timeout})
     * for its answer on llm.outputs and for the results of the tool calls the answer made (one per EXECUTE block, on
     * tool.results), so the next turn is assembled with all of them in the history, as the original turn was.
     */
    void sendTurnByTurn(List<CognitionRequest> requests, Set<String> answered, Duration timeout, String verb,
                        int every, PrintWriter err) throws InterruptedException, ExecutionException {
        Properties props = consumerConfig();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(),
                new ByteArraySerializer(), new ByteArraySerializer());
             KafkaConsumer<byte[], byte[]> answers = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                     new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>(partitions(answers, topics.llmOutputs));
            partitions.addAll(partitions(answers, topics.toolResults));
            answers.assign(partitions);
            answers.seekToEnd(partitions);
            partitions.forEach(answers::position);
            for (int sent = 0; sent < requests.size(); sent++) {
                CognitionRequest request = requests.get(sent);
                producer.send(record(request)).get();
                if (answered.contains(request.getRequestId()) && !awaitAnswer(answers, request, timeout)) {
                    err.printf("no answer to %s within %d s; going on without it%n", request.getRequestId(),
                            timeout.toSeconds());
                }
                progress(verb, sent + 1, requests.size(), every, err);
            }
        }
    }

    private boolean awaitAnswer(KafkaConsumer<byte[], byte[]> answers, CognitionRequest request, Duration timeout) {
        byte[] key = request.getSessionId().getBytes(StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Integer> resultsByPacket = new HashMap<>();
        String packet = null;
        int calls = 0;
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> record : answers.poll(Duration.ofMillis(100))) {
                if (record.value() == null || !Arrays.equals(record.key(), key)) {
                    continue;
                }
                if (record.topic().equals(topics.toolResults.name())) {
                    resultsByPacket.merge(String.valueOf(decode(topics.toolResults, record).getPacketId()), 1,
                            Integer::sum);
                    continue;
                }
                LlmOutput output = decode(topics.llmOutputs, record);
                if (output.getRequestId().equals(request.getRequestId())) {
                    packet = output.getPacketId();
                    // Routing makes one tool call of each EXECUTE block, with the same parser.
                    calls = (int) MarkerParser.parse(output.getText()).stream()
                            .filter(block -> block.marker() == Marker.EXECUTE).count();
                }
            }
            if (packet != null && resultsByPacket.getOrDefault(packet, 0) >= calls) {
                return true;
            }
        }
        return false;
    }

    private ProducerRecord<byte[], byte[]> record(CognitionRequest request) {
        Topic<String, CognitionRequest> topic = topics.requests;
        return new ProducerRecord<>(topic.name(), request.getSessionId().getBytes(StandardCharsets.UTF_8),
                topic.valueSerde().serializer().serialize(topic.name(), request));
    }

    private static void progress(String verb, int sent, int total, int every, PrintWriter err) {
        if (sent % every == 0 && sent < total) {
            err.printf("%s %d/%d requests%n", verb, sent, total);
            err.flush();
        }
    }

    private Map<String, Object> producerConfig() {
        return Transactions.producerConfig(cluster.clientConfig());
    }

    private Properties consumerConfig() {
        return TopicReader.consumerConfig(cluster.clientConfig());
    }

    private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, Topic<?, ?> topic) {
        return TopicReader.partitions(consumer, topic.name());
    }

    private <V> void readToEnd(Topic<String, V> topic, Optional<Instant> from,
                               Consumer<ConsumerRecord<byte[], byte[]>> each) {
        TopicReader.readToEnd(cluster.clientConfig(), topic.name(), from, each);
    }

    private static String key(ConsumerRecord<byte[], byte[]> record) {
        return record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    }

    private static <V> V decode(Topic<String, V> topic, ConsumerRecord<byte[], byte[]> record) {
        return topic.valueSerde().deserializer().deserialize(topic.name(), record.value());
    }
}
