package io.cognitionstreams.model;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Reads packets, asks the model, writes outputs: a transactional consume-process-produce loop rather than a
 * Kafka Streams processor, because a model call can take seconds to minutes and must not hold up a stream thread
 * or its commits. Each poll's outputs, dead letters and consumed offsets commit in one transaction, so every packet
 * gets exactly one answer (or one dead letter) even across crashes.
 */
public final class ModelWorker implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelWorker.class);

    private final Topics topics;
    private final ModelClient model;
    private final Properties consumerProps = new Properties();
    private final Properties producerProps = new Properties();
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private KafkaProducer<byte[], byte[]> producer;
    private final int attempts;
    private final String groupId;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong answered = new AtomicLong();

    /**
     * @param clientConfig bootstrap servers and any security settings, shared by consumer and producer
     * @param attempts     tries per packet when the model fails in a retriable way (timeouts, 429, 5xx)
     * @param maxPollRecords packets per transaction; keep small for slow models so a poll's work stays well inside
     *                       max.poll.interval.ms
     */
    public ModelWorker(Map<String, Object> clientConfig, String groupId, Topics topics, ModelClient model,
                       int attempts, int maxPollRecords) {
        this.topics = topics;
        this.model = model;
        this.attempts = attempts;
        this.groupId = groupId;
        consumerProps.putAll(clientConfig);
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        // A crashed worker keeps its partitions until its session expires; 15 s as for the stream threads, not
        // the client's 45 s, so a restarted one takes over sooner.
        consumerProps.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 15_000);
        producerProps.putAll(clientConfig);
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        // The id is new after a crash, so nothing fences the dead process's open transaction: the broker aborts it
        // after this long, and until then read_committed readers of llm.outputs wait. Kafka Streams uses 10 s too.
        producerProps.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000);
    }

    /**
     * Until closed. A failure the loop cannot handle in place (fenced, a broker away longer than max.block.ms,
     * after which the producer refuses to abort) starts it over with new clients from the last commit, as Kafka
     * Streams replaces a failed thread: nothing uncommitted was visible, so nothing is lost or doubled.
     */
    @Override
    public void run() {
        while (running.get()) {
            consumer = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            // A fresh id per start: zombie fencing comes from the consumer group generation (EOS v2, KIP-447).
            producerProps.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, groupId + "-" + UUID.randomUUID());
            producer = new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer());
            try {
                producer.initTransactions();
                consumer.subscribe(List.of(topics.packets.name()));
                while (running.get()) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                    if (!records.isEmpty()) {
                        processInTransaction(records);
                    }
                }
            } catch (WakeupException e) {
                // close() asked to stop
            } catch (RuntimeException e) {
                if (running.get()) {
                    LOG.error("model worker failed, starting again from the last commit: {}", e.toString());
                    sleepQuietly(Duration.ofSeconds(1));
                }
            } finally {
                consumer.close();
                producer.close(Duration.ofSeconds(5));
            }
        }
    }

    private void processInTransaction(ConsumerRecords<byte[], byte[]> records) {
        producer.beginTransaction();
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                ProducerRecord<byte[], byte[]> answer = answer(record);
                // A record the broker refuses aborts the transaction; remembered, it is refused before it is sent
                // when the packet is read again, and the packet is dead-lettered instead of read forever.
                producer.send(answer, (metadata, error) -> {
                    if (error != null && OutputGuard.isRefusalOfTheRecord(error)) {
                        OutputGuard.remember(answer.topic(), answer.value(), error);
                    }
                });
                offsets.put(new TopicPartition(record.topic(), record.partition()),
                        new OffsetAndMetadata(record.offset() + 1));
            }
            producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            producer.commitTransaction();
            answered.addAndGet(records.count());
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
            throw e;
        } catch (KafkaException e) {
            LOG.warn("model worker transaction aborted, re-reading from the last commit: {}", e.getMessage());
            producer.abortTransaction();
            rewind();
        }
    }

    /** Output for one packet: the model's answer, or a dead letter when the packet or the model fails for good. */
    private ProducerRecord<byte[], byte[]> answer(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), java.nio.charset.StandardCharsets.UTF_8);
        CognitionPacket packet;
        try {
            packet = topics.packets.valueSerde().deserializer().deserialize(record.topic(), record.value());
            if (packet == null) {
                throw new IllegalArgumentException("packet value is null (a tombstone is not a packet)");
            }
        } catch (RuntimeException e) {
            return deadLetter(record, ErrorKind.DESERIALIZATION, e);
        }
        try {
            ModelClient.Completion completion = completeWithRetries(packet);
            LlmOutput output = LlmOutput.newBuilder()
                    .setOutputId(packet.getMeta().getPacketId() + "-out")
                    .setPacketId(packet.getMeta().getPacketId())
                    .setParentId(packet.getMeta().getParentId())
                    .setRequestId(packet.getRequestId())
                    .setSessionId(packet.getSessionId())
                    .setActiveSkill(packet.getHeader().getActiveSkill())
                    .setModel(completion.model())
                    .setText(completion.text())
                    .setTimestamp(Instant.now())
                    .setLatencyMs(Duration.between(packet.getMeta().getTimestamp(), Instant.now()).toMillis())
                    .setPromptTokens(completion.promptTokens())
                    .setCompletionTokens(completion.completionTokens())
                    .build();
            return new ProducerRecord<>(topics.llmOutputs.name(), record.key(),
                    topics.llmOutputs.valueSerde().serializer().serialize(topics.llmOutputs.name(), output));
        } catch (ModelClient.ModelException e) {
            LOG.warn("model failed for packet {} of session {}: {}", packet.getMeta().getPacketId(), key,
                    e.getMessage());
            return deadLetter(record, ErrorKind.PROCESSING, e);
        } catch (OutputGuard.RefusedOutputException e) {
            LOG.warn("the answer to packet {} of session {} cannot be written: {}", packet.getMeta().getPacketId(),
                    key, e.getMessage());
            return deadLetter(record, ErrorKind.PROCESSING, e);
        }
    }

    private ModelClient.Completion completeWithRetries(CognitionPacket packet) throws ModelClient.ModelException {
        for (int attempt = 1; ; attempt++) {
            try {
                return model.complete(packet.getTargetModel(), PromptRenderer.render(packet));
            } catch (ModelClient.ModelException e) {
                if (!e.retriable() || attempt >= attempts || !running.get()) {
                    throw e;
                }
                sleepQuietly(Duration.ofMillis(500L * attempt));
            }
        }
    }

    private ProducerRecord<byte[], byte[]> deadLetter(ConsumerRecord<byte[], byte[]> record, ErrorKind kind,
                                                      Exception error) {
        DeadLetters.Origin origin = new DeadLetters.Origin(record.topic(), record.partition(), record.offset(),
                "model-worker", groupId);
        DeadLetter letter = DeadLetters.of(kind, error, origin, record.key(), record.value(), Instant.now());
        Topic<String, DeadLetter> dlq = topics.deadLetters;
        String key = DeadLetters.key(record.topic(), record.partition(), record.offset());
        return new ProducerRecord<>(dlq.name(), dlq.keySerde().serializer().serialize(dlq.name(), key),
                dlq.valueSerde().serializer().serialize(dlq.name(), letter));
    }

    private void rewind() {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment());
        for (TopicPartition partition : consumer.assignment()) {
            OffsetAndMetadata offset = committed.get(partition);
            if (offset == null) {
                consumer.seekToBeginning(List.of(partition));
            } else {
                consumer.seek(partition, offset.offset());
            }
        }
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public long answered() {
        return answered.get();
    }

    @Override
    public void close() {
        running.set(false);
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
    }
}
