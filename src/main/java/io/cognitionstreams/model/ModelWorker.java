package io.cognitionstreams.model;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Lineage;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.worker.TransactionalLoop;

/**
 * Reads packets, asks the model, writes outputs, on a {@link TransactionalLoop} rather than a Kafka Streams
 * processor, because a model call can take seconds to minutes and must not hold up a stream thread or its commits.
 * Every packet gets exactly one answer (or one dead letter) even across crashes.
 */
public final class ModelWorker implements Runnable, AutoCloseable, TransactionalLoop.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(ModelWorker.class);
    private static final String COMPONENT = "model-worker";

    private final Topics topics;
    private final ModelClient model;
    private final int attempts;
    private final String groupId;
    private final TransactionalLoop loop;
    private final AnswerStreams streams;
    private final AtomicBoolean running = new AtomicBoolean(true);

    /**
     * @param clientConfig   bootstrap servers and any security settings, shared by consumer and producer
     * @param instanceId     this process's name across restarts ({@link TransactionalLoop})
     * @param attempts       tries per packet when the model fails in a retriable way (timeouts, 429, 5xx)
     * @param maxPollRecords packets per transaction; keep small for slow models so a poll's work stays well inside
     *                       max.poll.interval.ms
     * @param sessionTimeout how long a worker that dies for good keeps its partitions
     * @param streams        how calls are made: {@link StreamedAnswers} previews each answer as it is written
     */
    public ModelWorker(Map<String, Object> clientConfig, String groupId, String instanceId, Topics topics,
                       ModelClient model, int attempts, int maxPollRecords, Duration sessionTimeout,
                       AnswerStreams streams) {
        this.streams = streams;
        this.topics = topics;
        this.model = model;
        this.attempts = attempts;
        this.groupId = groupId;
        // Kafka's default poll interval: a model call is bounded by its own timeout, well inside it.
        this.loop = new TransactionalLoop(COMPONENT, clientConfig, groupId, instanceId, topics.packets.name(),
                maxPollRecords, Duration.ofMinutes(5), sessionTimeout, this);
    }

    @Override
    public void run() {
        loop.run();
    }

    @Override
    public Map<TopicPartition, Long> process(ConsumerRecords<byte[], byte[]> records,
                                             TransactionalLoop.Batch batch) {
        for (ConsumerRecord<byte[], byte[]> record : records) {
            batch.send(answer(record));
        }
        return Map.of();
    }

    /** Output for one packet: the model's answer, or a dead letter when the packet or the model fails for good. */
    private ProducerRecord<byte[], byte[]> answer(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        CognitionPacket packet;
        try {
            packet = topics.packets.valueSerde().deserializer().deserialize(record.topic(), record.value());
            if (packet == null) {
                throw new IllegalArgumentException("packet value is null (a tombstone is not a packet)");
            }
        } catch (RuntimeException e) {
            return TransactionalLoop.deadLetter(topics, record, ErrorKind.DESERIALIZATION, e, COMPONENT, groupId);
        }
        try {
            ModelClient.Completion completion = completeWithRetries(packet);
            LlmOutput output = LlmOutput.newBuilder()
                    .setOutputId(Lineage.outputId(packet.getMeta().getPacketId()))
                    .setPacketId(packet.getMeta().getPacketId())
                    .setParentId(packet.getMeta().getParentId())
                    .setTimeTravel(packet.getMeta().getTimeTravel())
                    .setOriginSessionId(packet.getMeta().getOriginSessionId())
                    .setRequestId(packet.getRequestId())
                    .setSessionId(packet.getSessionId())
                    .setActiveSkill(packet.getHeader().getActiveSkill())
                    .setModel(completion.model())
                    .setText(completion.text())
                    .setTimestamp(Instant.now())
                    .setLatencyMs(Duration.between(packet.getMeta().getTimestamp(), Instant.now()).toMillis())
                    .setPromptTokens(completion.promptTokens())
                    .setCompletionTokens(completion.completionTokens())
                    .setCouncilId(packet.getMeta().getCouncilId())
                    .setMemoryScope(packet.getMeta().getMemoryScope())
                    .build();
            return new ProducerRecord<>(topics.llmOutputs.name(), record.key(),
                    topics.llmOutputs.valueSerde().serializer().serialize(topics.llmOutputs.name(), output));
        } catch (ModelClient.ModelException e) {
            LOG.warn("model failed for packet {} of session {}: {}", packet.getMeta().getPacketId(), key,
                    e.getMessage());
            return TransactionalLoop.deadLetter(topics, record, ErrorKind.PROCESSING, e, COMPONENT, groupId);
        } catch (OutputGuard.RefusedOutputException e) {
            LOG.warn("the answer to packet {} of session {} cannot be written: {}", packet.getMeta().getPacketId(),
                    key, e.getMessage());
            return TransactionalLoop.deadLetter(topics, record, ErrorKind.PROCESSING, e, COMPONENT, groupId);
        }
    }

    private ModelClient.Completion completeWithRetries(CognitionPacket packet) throws ModelClient.ModelException {
        for (int attempt = 1; ; attempt++) {
            try {
                return ModelClient.await(streams.call(model, ModelClient.ModelCall.of(packet.getTargetModel(),
                        PromptRenderer.render(packet)), packet));
            } catch (ModelClient.ModelException e) {
                if (!e.retriable() || attempt >= attempts || !running.get()) {
                    throw e;
                }
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    @Override
    public void close() {
        running.set(false);
        loop.close();
    }
}
