package io.cognitionstreams.serde;

import org.apache.avro.SystemLimitException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the length a record may declare for one string or bytes value. Avro allocates a declared length before it
 * reads the bytes, and its own cap is 2 GiB: a 15-byte record declaring a billion-byte string made the decoder
 * throw OutOfMemoryError, an Error that no dead-letter handler sees, so the same record killed every replacement
 * stream thread. No field of the app comes near 16 MiB (prompts stop at 256 Ki characters, outputs at 512 Ki), and
 * a Kafka record is far smaller unless an operator raised max.message.bytes. Avro reads the limits once, when its
 * {@link SystemLimitException} class loads, so this must run before the first record is decoded; values an
 * operator set with -D are kept.
 */
public final class AvroLimits {

    public static final int MAX_VALUE_BYTES = 16 * 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(AvroLimits.class);

    private AvroLimits() {
    }

    public static synchronized void install() {
        for (String property : new String[] {SystemLimitException.MAX_STRING_LENGTH_PROPERTY,
                SystemLimitException.MAX_BYTES_LENGTH_PROPERTY}) {
            if (System.getProperty(property) == null) {
                System.setProperty(property, String.valueOf(MAX_VALUE_BYTES));
            }
        }
        try {
            SystemLimitException.checkMaxStringLength(MAX_VALUE_BYTES + 1L);
            LOG.warn("Avro was loaded before its limits were set: a record may still declare strings up to 2 GiB");
        } catch (SystemLimitException expected) {
            // the cap is in force
        }
    }
}
