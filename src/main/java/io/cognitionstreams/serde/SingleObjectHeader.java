package io.cognitionstreams.serde;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The 10 bytes in front of every single-object encoded value: C3 01, then the CRC-64-AVRO fingerprint of the
 * writer schema's Parsing Canonical Form, little-endian. Shown as hex in the order the bytes travel, because that
 * is what a client in another language compares: Avro's own messages give the fingerprint as a signed long, which
 * matches nothing a client can see.
 */
public final class SingleObjectHeader {

    public static final int LENGTH = 10;

    private static final int MAGIC_LENGTH = 2;

    private SingleObjectHeader() {
    }

    /** The header every value written with {@code schema} starts with. */
    public static byte[] of(Schema schema) {
        return ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0xC3).put((byte) 0x01)
                .putLong(SchemaNormalization.parsingFingerprint64(schema)).array();
    }

    /** The fingerprint in a value's header, as Avro's {@code SchemaStore} looks it up. */
    static long fingerprint(byte[] value) {
        return ByteBuffer.wrap(value, MAGIC_LENGTH, LENGTH - MAGIC_LENGTH).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** The first {@link #LENGTH} bytes of {@code value} (fewer if it is shorter) as {@code C3 01 | 1A 2B ...}. */
    public static String hex(byte[] value) {
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < Math.min(value.length, LENGTH); i++) {
            hex.append(i == 0 ? "" : i == MAGIC_LENGTH ? " | " : " ").append(String.format("%02X", value[i]));
        }
        return hex.toString();
    }
}
