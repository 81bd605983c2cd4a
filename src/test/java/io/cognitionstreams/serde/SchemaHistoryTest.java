package io.cognitionstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.util.RandomData;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * The app reads what its past versions wrote: every schema version in the history, filled with random values and
 * single-object encoded as that version wrote it, decodes into today's record of its topic. And the history is
 * complete: it holds each topic's schema of today, so the next version will read this one's records.
 */
class SchemaHistoryTest {

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void theHistoryHoldsEveryTopicsSchemaOfToday() {
        Set<String> history = SchemaHistory.schemas().stream().map(SchemaHistoryWriter::fileName)
                .collect(Collectors.toSet());
        for (Topic<?, ?> topic : topics.all()) {
            assertThat(history).as("%s's schema of today is in src/main/resources/schema-history: run "
                    + "bin/test-main io.cognitionstreams.serde.SchemaHistoryWriter and commit what it writes",
                    topic.name()).contains(SchemaHistoryWriter.fileName(topic.valueSchema()));
        }
    }

    @Test
    void everyPastVersionOfATopicsRecordDecodesIntoTodaysRecord() {
        int decoded = 0;
        for (Topic<?, ?> topic : topics.all()) {
            List<Schema> versions = SchemaHistory.schemas().stream()
                    .filter(past -> past.getFullName().equals(topic.valueSchema().getFullName())).toList();
            for (Schema version : versions) {
                BinaryMessageEncoder<Object> encoder = new BinaryMessageEncoder<>(GenericData.get(), version);
                Iterator<Object> records = new RandomData(version, 5, 20261126L).iterator();
                while (records.hasNext()) {
                    ByteBuffer encoded = encode(encoder, records.next());
                    byte[] bytes = new byte[encoded.remaining()];
                    encoded.get(bytes);
                    assertThat(topic.valueSerde().deserializer().deserialize(topic.name(), bytes))
                            .as("%s written with %s", topic.name(), SchemaHistoryWriter.fileName(version))
                            .isNotNull();
                    decoded++;
                }
            }
        }
        assertThat(decoded).as("versions tried").isGreaterThan(5 * topics.all().size());
    }

    private static ByteBuffer encode(BinaryMessageEncoder<Object> encoder, Object record) {
        try {
            return encoder.encode(record);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
