package io.cognitionstreams.assembly;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.worker.TransactionalLoop;
import io.cognitionstreams.worker.WorkerLetters;

/**
 * Embeds the blocks routed to channel.memory into entries on cognition.memory, each in its scope owner's partition,
 * where the assembly's task that holds the scope keeps it. It runs on a {@link TransactionalLoop} of its own rather
 * than on the assembly's stream thread: embedding is milliseconds of CPU a block, which there held up every answer
 * behind it, and a poll's blocks are embedded in one call of the model, which batches them. Every block becomes its
 * entry once (or one dead letter), even across crashes.
 */
public final class MemoryWriter implements Runnable, AutoCloseable, TransactionalLoop.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryWriter.class);
    private static final String COMPONENT = "memory-writer";
    /** Blocks a transaction takes: one call of the model, and a few seconds of it at most (MiniLM's, 5 ms each). */
    static final int MAX_POLL_RECORDS = 64;
    /** The static table embeds a block in microseconds: a transaction may take as many as a gather brings. */
    static final int MAX_POLL_RECORDS_STATIC = 1024;
    /**
     * How long a poll waits for more blocks. Memory is written beside the answers, not before them, so a tenth of a
     * second more costs no answer anything; taken at once, the blocks of a busy pipeline each cost a transaction
     * (a few broker requests, a marker in every partition written), and at 1,000 answers a second that was some 50
     * transactions a second (docs/benchmarks.md, "Records and requests per answer").
     */
    static final Duration GATHER = Duration.ofMillis(100);

    private final Topics topics;
    private final EmbeddingModel model;
    private final int partitions;
    private final String groupId;
    private final TransactionalLoop loop;

    /**
     * @param partitions how many partitions cognition.memory has: where each scope's owner is
     * @param instanceId this process's name across restarts ({@link TransactionalLoop})
     */
    public MemoryWriter(Map<String, Object> clientConfig, String groupId, String instanceId, Topics topics,
                        EmbeddingModel model, int partitions, Duration sessionTimeout) {
        this.topics = topics;
        this.model = model;
        this.partitions = partitions;
        this.groupId = groupId;
        this.loop = new TransactionalLoop(COMPONENT, clientConfig, groupId, instanceId,
                Topics.channelTopic(Channel.MEMORY), StaticEmbedder.MODEL.equals(model.name())
                        ? MAX_POLL_RECORDS_STATIC : MAX_POLL_RECORDS,
                Duration.ofMinutes(5), sessionTimeout, GATHER, this);
    }

    @Override
    public void run() {
        loop.run();
    }

    @Override
    public Map<TopicPartition, Long> process(ConsumerRecords<byte[], byte[]> records, TransactionalLoop.Batch batch) {
        for (ProducerRecord<byte[], byte[]> output : write(records)) {
            batch.send(output);
        }
        return Map.of();
    }

    /** The entries (and dead letters) of a poll's blocks, in the blocks' order. */
    List<ProducerRecord<byte[], byte[]>> write(Iterable<ConsumerRecord<byte[], byte[]>> records) {
        Topic<String, RoutedBlock> channel = topics.channel(Channel.MEMORY);
        List<ConsumerRecord<byte[], byte[]>> valid = new ArrayList<>();
        List<RoutedBlock> blocks = new ArrayList<>();
        List<ProducerRecord<byte[], byte[]>> outputs = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            RoutedBlock block;
            try {
                block = channel.valueSerde().deserializer().deserialize(record.topic(), record.headers(),
                        record.value());
            } catch (RuntimeException e) {
                outputs.add(WorkerLetters.deadLetter(topics, record, ErrorKind.DESERIALIZATION, e, COMPONENT,
                        groupId));
                continue;
            }
            try {
                blocks.add(EpisodicMemory.checked(block));
                valid.add(record);
                outputs.add(null);
            } catch (InvalidRecordException e) {
                outputs.add(WorkerLetters.deadLetter(topics, record, ErrorKind.VALIDATION, e, COMPONENT,
                        groupId));
            }
        }
        // One call for the poll: the model embeds the texts together, and a text repeated in it once.
        List<float[]> vectors = blocks.isEmpty() ? List.of()
                : model.embedder().embed(blocks.stream().map(RoutedBlock::getText).toList());
        int next = 0;
        for (int i = 0; i < outputs.size(); i++) {
            if (outputs.get(i) != null) {
                continue;
            }
            ConsumerRecord<byte[], byte[]> record = valid.get(next);
            MemoryEntry entry = EpisodicMemory.remember(blocks.get(next), new EpisodicMemory.Source(record.topic(),
                    record.partition(), record.offset(), Instant.ofEpochMilli(record.timestamp())), model.name(),
                    Vectors.unit(vectors.get(next)));
            next++;
            outputs.set(i, entry(record, entry));
        }
        return outputs;
    }

    private ProducerRecord<byte[], byte[]> entry(ConsumerRecord<byte[], byte[]> record, MemoryEntry entry) {
        Topic<String, MemoryEntry> memory = topics.memory;
        try {
            return new ProducerRecord<>(memory.name(), MemoryWrite.partitionOf(EpisodicMemory.scopeOf(entry),
                    partitions), entry.getBlockId().getBytes(StandardCharsets.UTF_8),
                    memory.valueSerde().serializer().serialize(memory.name(), entry));
        } catch (OutputGuard.RefusedOutputException e) {
            LOG.warn("the memory of block {} cannot be written: {}", entry.getBlockId(), e.getMessage());
            return WorkerLetters.deadLetter(topics, record, ErrorKind.PROCESSING, e, COMPONENT, groupId);
        }
    }

    @Override
    public void close() {
        loop.close();
    }
}
