package io.cognitionstreams.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The single-object header as docs/serialization.md tells a client in another language to make it, spelled out
 * here rather than taken from the code under test.
 */
public final class SingleObject {

    private SingleObject() {
    }

    /** C3 01, then the CRC-64-AVRO fingerprint of the schema's Parsing Canonical Form, least significant first. */
    public static byte[] header(Schema schema) {
        return ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0xC3).put((byte) 0x01)
                .putLong(SchemaNormalization.parsingFingerprint64(schema)).array();
    }

    /** A value's first 10 bytes in the order they travel, as {@code C3 01 | 1A 2B ...}. */
    public static String hex(byte[] value) {
        StringBuilder hex = new StringBuilder(String.format("%02X %02X |", value[0], value[1]));
        for (int i = 2; i < 10; i++) {
            hex.append(String.format(" %02X", value[i]));
        }
        return hex.toString();
    }
}
