package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * The memory writer: a poll's blocks embedded in one call of the model, each entry in its scope owner's partition of
 * cognition.memory with where and when its block was written, and a dead letter for each block it cannot remember,
 * in the blocks' order.
 */
class MemoryWriterTest {

    private static final int PARTITIONS = 3;

    private final Topics topics = Drivers.topics();
    private final List<List<String>> calls = new ArrayList<>();
    private final EmbeddingModel model = new EmbeddingModel(StaticEmbedder.MODEL, sentences -> {
        calls.add(sentences);
        return sentences.stream().map(text -> axis(text.length() % 384)).toList();
    });
    private final MemoryWriter writer = new MemoryWriter(Map.of("bootstrap.servers", "unused:9092"),
            "app-memory-writer", "i1", topics, model, PARTITIONS, Duration.ofSeconds(15));

    @Test
    void aPollsBlocksAreEmbeddedTogetherAndEachEntryGoesToItsOwnersPartition() {
        List<ProducerRecord<byte[], byte[]>> written = writer.write(List.of(
                block(0, Records.memoryBlock("b1", "s1", "VERIFY: the backup restored.").setMemoryScope("ops")
                        .setRequestId("r-early").build(), 10_000),
                block(1, Records.memoryBlock("b2", "s2", "THOUGHT_SEED: try a canary deploy.").build(), 20_000)));

        assertThat(calls).containsExactly(List.of("VERIFY: the backup restored.",
                "THOUGHT_SEED: try a canary deploy."));
        assertThat(written).extracting(ProducerRecord::topic).containsOnly(Topics.COGNITION_MEMORY);
        assertThat(written).extracting(ProducerRecord::partition).containsExactly(
                MemoryWrite.partitionOf("ops", PARTITIONS), MemoryWrite.partitionOf("session/s2", PARTITIONS));
        assertThat(MemoryWrite.partitionOf("session/s2", PARTITIONS)).as("a session's own, beside its requests")
                .isEqualTo(Topics.partitionOfKey("s2", PARTITIONS));
        List<MemoryEntry> entries = written.stream().map(record -> topics.memory.valueSerde().deserializer()
                .deserialize(Topics.COGNITION_MEMORY, record.value())).toList();
        assertThat(written).extracting(record -> new String(record.key(), StandardCharsets.UTF_8))
                .containsExactly("b1", "b2");
        assertThat(entries).extracting(MemoryEntry::getScope, MemoryEntry::getSourceTopic,
                MemoryEntry::getSourcePartition, MemoryEntry::getSourceOffset).containsExactly(
                tuple("ops", Topics.channelTopic(Channel.MEMORY), 0, 0L),
                tuple("session/s2", Topics.channelTopic(Channel.MEMORY), 0, 1L));
        assertThat(entries).extracting(entry -> entry.getWrittenAt().toEpochMilli()).containsExactly(10_000L,
                20_000L);
        assertThat(entries.get(0).getRequestId()).isEqualTo("r-early");
        assertThat(entries.get(0).getEmbedding()).as("the vector travels as bytes").isEmpty();
        assertThat(MemoryEntries.vector(entries.get(0))).hasSize(384);
        assertThat(entries.get(0).getVectorInt8().remaining()).as("a scale, then a byte a dimension")
                .isEqualTo(Float.BYTES + 384);
        assertThat(entries.get(0).getVector()).as("no floats beside it").isNull();
    }

    @Test
    void aBlockItCannotRememberIsADeadLetterAndTheOthersAreWritten() {
        List<ProducerRecord<byte[], byte[]>> written = writer.write(List.of(
                raw(0, "not a block".getBytes(StandardCharsets.UTF_8)),
                block(1, Records.memoryBlock("b1", "s1", "VERIFY: fine").setMemoryScope("ops\u001b[31m").build(), 1),
                block(2, Records.memoryBlock("b2", "s1", "VERIFY: kept").build(), 2)));

        assertThat(written).extracting(ProducerRecord::topic).containsExactly(Topics.COGNITION_DLQ,
                Topics.COGNITION_DLQ, Topics.COGNITION_MEMORY);
        List<DeadLetter> letters = written.subList(0, 2).stream().map(record -> topics.deadLetters.valueSerde()
                .deserializer().deserialize(Topics.COGNITION_DLQ, record.value())).toList();
        assertThat(letters).extracting(DeadLetter::getErrorKind).containsExactly(ErrorKind.DESERIALIZATION,
                ErrorKind.VALIDATION);
        assertThat(letters.get(1).getReason()).isEqualTo("memory block b1: memory scope 'ops?[31m' holds a "
                + "control character");
        assertThat(calls).containsExactly(List.of("VERIFY: kept"));
    }

    private ConsumerRecord<byte[], byte[]> block(long offset, RoutedBlock block, long timestamp) {
        byte[] value = topics.channel(Channel.MEMORY).valueSerde().serializer().serialize(
                Topics.channelTopic(Channel.MEMORY), block);
        return new ConsumerRecord<>(Topics.channelTopic(Channel.MEMORY), 0, offset, timestamp,
                TimestampType.CREATE_TIME, 2, value.length, block.getSessionId().getBytes(StandardCharsets.UTF_8),
                value, new RecordHeaders(), Optional.empty());
    }

    private static ConsumerRecord<byte[], byte[]> raw(long offset, byte[] value) {
        return new ConsumerRecord<>(Topics.channelTopic(Channel.MEMORY), 0, offset, 0, TimestampType.CREATE_TIME, 0,
                value.length, null, value, new RecordHeaders(), Optional.empty());
    }

    private static float[] axis(int axis) {
        float[] vector = new float[384];
        vector[axis] = 1;
        return vector;
    }
}
