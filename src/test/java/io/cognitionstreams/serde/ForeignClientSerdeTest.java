package io.cognitionstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SingleObject;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * A client in another language, done the way docs/serialization.md tells it: the schema is the committed
 * self-contained file read as plain JSON, parsed by a fresh parser with no generated class, and the header made by
 * the doc's recipe ({@link SingleObject}), not by the app's code.
 */
class ForeignClientSerdeTest {

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void aRequestTheForeignClientWritesIsReadByTheApp() throws IOException {
        Schema schema = schemaOf(Topics.COGNITION_REQUESTS);
        GenericRecord request = new GenericRecordBuilder(schema).set("request_id", "r1").set("session_id", "s1")
                .set("user_prompt", "Plan the deploy").set("mtu", 2048).set("timestamp", 1_795_000_000_000L).build();

        CognitionRequest read = topics.requests.valueSerde().deserializer()
                .deserialize(Topics.COGNITION_REQUESTS, encode(schema, request));

        assertThat(read.getRequestId()).isEqualTo("r1");
        assertThat(read.getSessionId()).isEqualTo("s1");
        assertThat(read.getUserPrompt()).isEqualTo("Plan the deploy");
        assertThat(read.getMtu()).isEqualTo(2048);
        assertThat(read.getTaskInstructionKey()).as("a default the client left out").isEqualTo("initial_planning");
        assertThat(read.getTimestamp().toEpochMilli()).isEqualTo(1_795_000_000_000L);
    }

    @Test
    void aRequestTheAppWritesIsReadByTheForeignClient() throws IOException {
        Schema schema = schemaOf(Topics.COGNITION_REQUESTS);
        byte[] value = topics.requests.valueSerde().serializer().serialize(Topics.COGNITION_REQUESTS,
                Records.request("s1", "Plan the deploy").setPersona("architect").build());

        GenericRecord read = decode(schema, value);

        assertThat(read.get("session_id").toString()).isEqualTo("s1");
        assertThat(read.get("user_prompt").toString()).isEqualTo("Plan the deploy");
        assertThat(read.get("persona").toString()).isEqualTo("architect");
        assertThat(read.get("timestamp")).isEqualTo(Records.T0.toEpochMilli());
    }

    /** RoutedBlock refers to Marker, which schemas/ keeps in common/: the case a new user tripped on. */
    @Test
    void aBlockWithATypeFromCommonIsReadByTheForeignClient() throws IOException {
        String topic = Topics.channelTopic(Channel.CLI_CHAT);
        Schema schema = schemaOf(topic);
        RoutedBlock block = RoutedBlock.newBuilder().setBlockId("o1#0").setOutputId("o1").setPacketId("0a1b2c3d")
                .setRequestId("r1").setSessionId("s1").setMarker(Marker.PLAN).setSequence(0).setBlockCount(1)
                .setChannel("cli_chat").setText("1. Tag the release.").setRedactions(Map.of("EMAIL", 1))
                .setTimestamp(Records.T0).build();
        byte[] value = topics.channel(Channel.CLI_CHAT).valueSerde().serializer().serialize(topic, block);

        GenericRecord read = decode(schema, value);

        assertThat(read.get("marker").toString()).isEqualTo("PLAN");
        assertThat(read.get("text").toString()).isEqualTo("1. Tag the release.");
        assertThat(read.get("redactions").toString()).isEqualTo("{EMAIL=1}");
    }

    private static Schema schemaOf(String topic) throws IOException {
        String json = Files.readString(Path.of("topic-schemas", topic + ".avsc"));
        return new Schema.Parser().parse(json);
    }

    private static byte[] encode(Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(SingleObject.header(schema));
        BinaryEncoder body = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, body);
        body.flush();
        return bytes.toByteArray();
    }

    private static GenericRecord decode(Schema schema, byte[] value) throws IOException {
        assertThat(Arrays.copyOf(value, 10)).as("the header the doc says to expect")
                .isEqualTo(SingleObject.header(schema));
        BinaryDecoder body = DecoderFactory.get().binaryDecoder(value, 10, value.length - 10, null);
        GenericRecord record = new GenericDatumReader<GenericRecord>(schema).read(null, body);
        assertThat(body.isEnd()).as("the body ends where the schema says").isTrue();
        return record;
    }
}
