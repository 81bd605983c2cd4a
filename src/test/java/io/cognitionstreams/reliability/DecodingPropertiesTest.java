package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.PacketPayload;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.serde.json.JsonAvroException;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Decoding never fails in a way the dead-letter path cannot take: any bytes on any topic decode or throw Kafka's
 * SerializationException (which the handlers turn into a letter), any text given to `produce` parses or throws a
 * JsonAvroException (which `produce` reports with its line). Nothing else: no Avro runtime exception escaping,
 * no OutOfMemoryError from a length a record merely declares.
 */
class DecodingPropertiesTest {

    private static final Topics TOPICS = new Topics(new SingleObjectAvroSerdeFactory());

    @Property(tries = 1000)
    void anyBytesOnAnyTopicDecodeOrFailAsSerializationException(@ForAll("topics") Topic<?, ?> topic,
                                                                @ForAll byte[] bytes) {
        decodeOrRefuse(topic, bytes);
    }

    @Property(tries = 2000)
    void anyBodyBehindAValidHeaderDecodesOrFailsAsSerializationException(@ForAll("topics") Topic<?, ?> topic,
                                                                         @ForAll byte[] body) {
        decodeOrRefuse(topic, concat(header(topic.valueType()), body));
    }

    @Property(tries = 2000)
    void corruptedRecordsDecodeOrFailAsSerializationException(@ForAll("corrupted") Corrupted corrupted) {
        decodeOrRefuse(corrupted.topic(), corrupted.bytes());
    }

    @Property(tries = 1000)
    void anyTextIsARecordOrAJsonAvroException(@ForAll("topics") Topic<?, ?> topic, @ForAll String text) {
        parseOrRefuse(topic, text);
    }

    @Property(tries = 2000)
    void editedJsonLinesAreRecordsOrJsonAvroExceptions(@ForAll("editedJson") String line) {
        parseOrRefuse(TOPICS.packets, line);
    }

    @Example
    void aStringDeclaredTwoBillionBytesLongIsRefusedWithoutAllocatingIt() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(header(CognitionRequest.class));
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        encoder.writeLong(2_000_000_000L);
        encoder.flush();

        assertThatThrownBy(() -> TOPICS.requests.valueSerde().deserializer()
                .deserialize(TOPICS.requests.name(), bytes.toByteArray()))
                .isInstanceOf(SerializationException.class).hasMessageContaining("$.request_id declares a string of 2000000000 bytes where 0 are left");
    }

    @Example
    void everyMalformedKindThatCannotDecodeIsRefusedWithItsReason() {
        Malformed.Samples samples = new Malformed.Samples(TOPICS, "decode");
        Random random = new Random(1);
        for (Malformed malformed : Malformed.values()) {
            Topic<?, ?> topic = TOPICS.byName(malformed.topic()).orElseThrow();
            byte[] value = malformed.value(samples, 1, random);
            if (malformed.kind() == ErrorKind.DESERIALIZATION) {
                assertThatThrownBy(() -> topic.valueSerde().deserializer().deserialize(topic.name(), value))
                        .as(malformed.name()).isInstanceOf(SerializationException.class)
                        .hasMessageContaining(malformed.reason());
            } else if (value != null) {
                assertThat(topic.valueSerde().deserializer().deserialize(topic.name(), value)).as(malformed.name())
                        .isNotNull();
            }
        }
    }

    @Example
    void jsonNestedTenThousandDeepIsAJsonAvroException() {
        String deep = "{\"request_id\": " + "[".repeat(10_000) + "]".repeat(10_000) + "}";

        assertThatThrownBy(() -> JsonAvro.fromJson(deep, CognitionRequest.class))
                .isInstanceOf(JsonAvroException.class).hasMessageContaining("$");
    }

    private static void decodeOrRefuse(Topic<?, ?> topic, byte[] bytes) {
        try {
            topic.valueSerde().deserializer().deserialize(topic.name(), bytes);
        } catch (SerializationException refused) {
            assertThat(refused.getMessage()).contains(topic.name());
        }
    }

    private static void parseOrRefuse(Topic<?, ?> topic, String text) {
        try {
            JsonAvro.fromJson(text, topic.valueType().asSubclass(SpecificRecord.class));
        } catch (JsonAvroException refused) {
            assertThat(refused.getPath()).startsWith("$");
        }
    }

    /** Avro single-object header of the type's current schema: C3 01 and the schema's fingerprint. */
    private static byte[] header(Class<?> type) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(SpecificData.get().getSchema(type));
        return ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0xC3).put((byte) 0x01)
                .putLong(fingerprint).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    record Corrupted(Topic<?, ?> topic, byte[] bytes) {
    }

    @Provide
    Arbitrary<Topic<?, ?>> topics() {
        return Arbitraries.of(TOPICS.all());
    }

    /** Valid requests, packets (with history: arrays and enums) and outputs, with bytes flipped, cut or added. */
    @Provide
    Arbitrary<Corrupted> corrupted() {
        List<Corrupted> valid = List.of(
                encoded(TOPICS.requests, Workload.FULL.request("fuzz", 7, Instant.now())),
                encoded(TOPICS.packets, packet()),
                encoded(TOPICS.llmOutputs, Records.output("fuzz", "PLAN:\n1. a\nRESPONSE: b").build()));
        Arbitrary<Edit> edit = Combinators.combine(Arbitraries.integers().between(0, 3),
                Arbitraries.doubles().between(0, 1), Arbitraries.bytes().array(byte[].class).ofMinSize(1)
                        .ofMaxSize(6)).as(Edit::new);
        return Combinators.combine(Arbitraries.of(valid), edit.list().ofMinSize(1).ofMaxSize(4))
                .as((record, edits) -> {
                    byte[] bytes = record.bytes();
                    for (Edit e : edits) {
                        bytes = e.apply(bytes);
                    }
                    return new Corrupted(record.topic(), bytes);
                });
    }

    /** Valid JSON of a packet with characters cut, JSON tokens dropped in, or values replaced. */
    @Provide
    Arbitrary<String> editedJson() {
        String json = JsonAvro.toJson(packet());
        Arbitrary<String> token = Arbitraries.of("{", "}", "[", "]", "\"", ":", ",", "null", "true", "1e999",
                "-0", "\"\\ud800\"", "9223372036854775808", "\"ROBOT\"", "{\"x\":1}", "\\u0000", "[[[[[[[[");
        return Combinators.combine(Arbitraries.integers().between(0, json.length() - 1),
                        Arbitraries.integers().between(0, 40), token, Arbitraries.integers().between(0, 2))
                .as((at, length, inserted, kind) -> switch (kind) {
                    case 0 -> json.substring(0, at) + json.substring(Math.min(json.length(), at + length));
                    case 1 -> json.substring(0, at) + inserted + json.substring(at);
                    default -> json.substring(0, at) + inserted + json.substring(Math.min(json.length(), at + length));
                });
    }

    private record Edit(int kind, double where, byte[] bytes) {
        byte[] apply(byte[] input) {
            if (input.length == 0) {
                return bytes;
            }
            int at = (int) (where * input.length);
            return switch (kind) {
                case 0 -> {
                    byte[] flipped = input.clone();
                    flipped[Math.min(at, input.length - 1)] ^= bytes[0];
                    yield flipped;
                }
                case 1 -> concat(concat(Arrays.copyOf(input, at), bytes), Arrays.copyOfRange(input, at, input.length));
                case 2 -> concat(Arrays.copyOf(input, at),
                        Arrays.copyOfRange(input, Math.min(input.length, at + bytes.length), input.length));
                default -> Arrays.copyOf(input, Math.max(1, at));
            };
        }
    }

    private static <V> Corrupted encoded(Topic<String, V> topic, V value) {
        return new Corrupted(topic, topic.valueSerde().serializer().serialize(topic.name(), value));
    }

    private static CognitionPacket packet() {
        Tokenizers tokenizers = new Tokenizers();
        PacketAssembler assembler = new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                ContextLayers.defaults(FieldCompressor.NONE), FieldCompressor.NONE);
        CognitionPacket packet = assembler.assemble(Records.input(Records.request("fuzz", "Plan it").build()))
                .packet();
        List<ChatMessage> history = List.of(
                ChatMessage.newBuilder().setRole(ChatRole.USER).setContent("Plan it").setTokenCount(2).build(),
                ChatMessage.newBuilder().setRole(ChatRole.TOOL).setContent("{}").setToolCallId("c1").build());
        return CognitionPacket.newBuilder(packet)
                .setPayload(PacketPayload.newBuilder(packet.getPayload()).setHistory(history).build()).build();
    }
}
