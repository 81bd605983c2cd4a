package io.cognitionstreams.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.apache.avro.SchemaNormalization;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/** Values an attacker or a broken client puts on a topic. */
public final class Hostile {

    public static final byte[] NOT_AVRO = "not avro".getBytes(StandardCharsets.UTF_8);

    private Hostile() {
    }

    /**
     * A single-object encoded {@code type} whose first field, a string or bytes, claims 2^31-1 bytes: decoders
     * that trust declared lengths allocate 2 GiB.
     */
    public static byte[] lengthBomb(Class<? extends SpecificRecord> type) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(SpecificData.get().getSchema(type));
        return ByteBuffer.allocate(2 + 8 + 5).order(ByteOrder.LITTLE_ENDIAN)
                .put((byte) 0xC3).put((byte) 0x01).putLong(fingerprint)
                // zig-zag varint of 2147483647
                .put((byte) 0xFE).put((byte) 0xFF).put((byte) 0xFF).put((byte) 0xFF).put((byte) 0x0F)
                .array();
    }
}
