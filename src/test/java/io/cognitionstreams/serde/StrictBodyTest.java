package io.cognitionstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The walk reads bodies in place; what it accepts and how it names what it refuses must not change with that. */
class StrictBodyTest {

    private static final Schema SCHEMA = SchemaBuilder.record("R").fields()
            .requiredString("name")
            .name("tags").type().map().values().stringType().noDefault()
            .name("ids").type().array().items().longType().noDefault()
            .optionalInt("count")
            .endRecord();
    private static final CharsetDecoder JDK = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    @Property(tries = 3000)
    void acceptsExactlyWhatTheJdkDecoderAccepts(@ForAll("utf8ish") byte[] bytes) {
        assertThat(Utf8.wellFormed(bytes, 0, bytes.length)).isEqualTo(jdkAccepts(bytes));
    }

    /** Mostly bytes of multi-byte forms, where the edges are: leads, continuations and their boundaries. */
    @Provide
    Arbitrary<byte[]> utf8ish() {
        Arbitrary<Byte> edges = Arbitraries.of(0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2,
                0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff).map(Integer::byteValue);
        return Arbitraries.oneOf(edges, Arbitraries.bytes()).array(byte[].class).ofMaxSize(12);
    }

    /**
     * Every pair of bytes, and after every byte that leads a longer form each edge of the bytes that may continue
     * it: where a hand-written check goes wrong (overlong forms, surrogates, past U+10FFFF, cut short).
     */
    @Test
    void agreesWithTheJdkDecoderOnEveryPairAndEveryLongerFormsEdges() {
        int[] edges = {0x7f, 0x80, 0xbf, 0xc0};
        for (int lead = 0; lead < 256; lead++) {
            for (int second = 0; second < 256; second++) {
                agree((byte) lead);
                agree((byte) lead, (byte) second);
                for (int third : lead < 0xe0 ? new int[0] : edges) {
                    agree((byte) lead, (byte) second, (byte) third);
                    for (int fourth : lead < 0xf0 ? new int[0] : edges) {
                        agree((byte) lead, (byte) second, (byte) third, (byte) fourth);
                    }
                }
            }
        }
    }

    private static void agree(byte... bytes) {
        if (Utf8.wellFormed(bytes, 0, bytes.length) != jdkAccepts(bytes)) {
            throw new AssertionError("disagrees with the JDK on " + HexFormat.of().formatHex(bytes));
        }
    }

    @Test
    void checksTheRangeOfBytesItIsGiven() {
        byte[] bytes = {'a', (byte) 0xe2, (byte) 0x82, (byte) 0xac, (byte) 0xe2, (byte) 0x82};
        assertThat(Utf8.wellFormed(bytes, 0, 4)).isTrue();
        assertThat(Utf8.wellFormed(bytes, 0, 6)).isFalse();
        assertThat(Utf8.wellFormed(bytes, 1, 3)).isFalse();
    }

    @Test
    void aWellFormedBodyPasses() throws IOException {
        assertThatCode(() -> StrictBody.requireValid(SCHEMA, body(record("név €😀", Map.of("k", "v")), 3), 3))
                .doesNotThrowAnyException();
    }

    @Test
    void namesTheMapKeyAboveABadValue() throws IOException {
        byte[] body = body(record("ok", Map.of("kéy", "vMARK")), 0);
        int mark = indexOf(body, "MARK");
        body[mark] = (byte) 0xc3;
        body[mark + 1] = 0x28;
        assertThatThrownBy(() -> StrictBody.requireValid(SCHEMA, body, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("$.tags.kéy is not valid UTF-8");
    }

    @Test
    void refusesLengthsAndCountsTheBytesCannotHold() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        encoder.writeString("ok");
        encoder.writeMapStart();
        encoder.setItemCount(0);
        encoder.writeMapEnd();
        encoder.writeLong(1_000_000_000L); // an array block of a billion longs
        assertThatThrownBy(() -> StrictBody.requireValid(SCHEMA, out.toByteArray(), 0))
                .hasMessage("$.ids declares 1000000000 items where 0 bytes are left");

        byte[] hugeString = {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}; // 2 GiB - 1
        assertThatThrownBy(() -> StrictBody.requireValid(SCHEMA, hugeString, 0))
                .hasMessage("$.name declares a string of 2147483647 bytes where 0 are left");
    }

    @Test
    void refusesBodiesThatEndEarlyOrRunOn() throws IOException {
        byte[] whole = body(record("ok", Map.of()), 0);
        assertThatThrownBy(() -> StrictBody.requireValid(SCHEMA, Arrays.copyOf(whole, whole.length - 1), 0))
                .isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> StrictBody.requireValid(SCHEMA, Arrays.copyOf(whole, whole.length + 2), 0))
                .hasMessage("2 bytes after the end of the record");
        byte[] endless = new byte[12];
        Arrays.fill(endless, (byte) 0x80); // a varint that never stops
        assertThatThrownBy(() -> StrictBody.requireValid(SCHEMA, endless, 0))
                .isInstanceOf(IOException.class).hasMessageContaining("10 bytes");
    }

    @Test
    void refusesAUnionBranchOutOfRange() throws IOException {
        byte[] body = body(record("ok", Map.of()), 0);
        body[body.length - 1] = 0x04; // branch 2 of the optional int's two
        assertThatThrownBy(() -> StrictBody.requireValid(SCHEMA, body, 0))
                .hasMessage("$.count names union branch 2, out of range of its 2");
    }

    private static GenericRecord record(String name, Map<String, String> tags) {
        GenericRecord record = new GenericData.Record(SCHEMA);
        record.put("name", name);
        record.put("tags", tags);
        record.put("ids", List.of(1L, -5L, Long.MIN_VALUE, Long.MAX_VALUE));
        record.put("count", null);
        return record;
    }

    private static byte[] body(GenericRecord record, int offset) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[offset]);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(SCHEMA).write(record, encoder);
        return out.toByteArray();
    }

    private static int indexOf(byte[] body, String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + needle.length <= body.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (body[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError(text + " not in the body");
    }

    private static boolean jdkAccepts(byte[] bytes) {
        try {
            JDK.reset().decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
