package io.cognitionstreams.serde;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * What Avro's Java decoder lets pass or cannot bear. It replaces invalid UTF-8 in strings with U+FFFD without a word
 * (a prompt with broken bytes would reach the model altered), it ignores bytes after the end of the record, and it
 * allocates whatever length a string, bytes value or array block declares before it reads a byte: a body of a few
 * bytes declaring a 2 GiB string ended a test JVM with OutOfMemoryError, an Error no dead-letter handler sees, and
 * {@link AvroLimits} only helps if it ran before Avro's first use. So this walks every body with the writer's schema
 * <em>before</em> Avro decodes it, refusing any length the bytes left cannot hold, and naming the place that is
 * wrong. The path is only put together on the way out of an error: the walk runs for every record read, including
 * each of the episodic memory's 384-float embeddings.
 */
final class StrictBody {

    private StrictBody() {
    }

    /**
     * @throws IllegalArgumentException naming the JSON path of the first string that is not valid UTF-8 or of the
     *                                  first length longer than the bytes left, or the number of bytes after the
     *                                  record
     * @throws IOException              if the body ends early
     */
    static void requireValid(Schema writer, byte[] data, int offset) throws IOException {
        BinaryDecoder in = DecoderFactory.get().binaryDecoder(data, offset, data.length - offset, null);
        try {
            walk(writer, in);
        } catch (Refused e) {
            throw new IllegalArgumentException("$" + e.path + e.reason);
        }
        if (!in.isEnd()) {
            throw new IllegalArgumentException(remaining(in) + " bytes after the end of the record");
        }
    }

    private static void walk(Schema schema, BinaryDecoder in) throws IOException {
        switch (schema.getType()) {
            case RECORD -> {
                for (Schema.Field field : schema.getFields()) {
                    try {
                        walk(field.schema(), in);
                    } catch (Refused e) {
                        throw e.under("." + field.name());
                    }
                }
            }
            case UNION -> {
                int branch = in.readIndex();
                if (branch < 0 || branch >= schema.getTypes().size()) {
                    throw new Refused(" names union branch " + branch + ", out of range of its " + schema.getTypes().size());
                }
                walk(schema.getTypes().get(branch), in);
            }
            case ARRAY -> {
                long index = 0;
                for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                    index = items(schema.getElementType(), block(n, in), index, in);
                }
            }
            case MAP -> {
                for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                    for (long i = block(n, in); i > 0; i--) {
                        String key = check(in, " (a key)");
                        try {
                            walk(schema.getValueType(), in);
                        } catch (Refused e) {
                            throw e.under("." + key);
                        }
                    }
                }
            }
            case STRING -> check(in, "");
            case BYTES -> in.skipFixed(length(in, "bytes value"));
            case FIXED -> in.skipFixed(schema.getFixedSize());
            case ENUM -> {
                int symbol = in.readEnum();
                if (symbol < 0 || symbol >= schema.getEnumSymbols().size()) {
                    throw new Refused(" names enum symbol " + symbol + ", out of range of its "
                            + schema.getEnumSymbols().size());
                }
            }
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case FLOAT -> in.readFloat();
            case DOUBLE -> in.readDouble();
            case BOOLEAN -> in.readBoolean();
            case NULL -> in.readNull();
        }
    }

    /**
     * A block's item count, refused when the bytes left cannot hold that many items: every type the app's schemas
     * put in an array or map takes at least one byte, and Avro sizes its list by the declared count.
     */
    private static int block(long n, BinaryDecoder in) throws IOException {
        long left = remaining(in);
        if (n < 0 || n > left) {
            throw new Refused(" declares " + n + " items where " + left + " bytes are left");
        }
        return (int) n;
    }

    /** One block of {@code n} array items, numbered from {@code index}; fixed-size numbers are skipped whole. */
    private static long items(Schema type, int n, long index, BinaryDecoder in) throws IOException {
        switch (type.getType()) {
            case FLOAT -> skipFixedSize(in, 4L * n);
            case DOUBLE -> skipFixedSize(in, 8L * n);
            default -> {
                for (int i = 0; i < n; i++) {
                    try {
                        walk(type, in);
                    } catch (Refused e) {
                        throw e.under("[" + (index + i) + "]");
                    }
                }
            }
        }
        return index + n;
    }

    private static void skipFixedSize(BinaryDecoder in, long bytes) throws IOException {
        long left = remaining(in);
        if (bytes > left) {
            throw new Refused(" declares " + bytes + " bytes of numbers where " + left + " are left");
        }
        in.skipFixed((int) bytes);
    }

    private static String check(BinaryDecoder in, String where) throws IOException {
        byte[] bytes = new byte[length(in, "string" + where)];
        in.readFixed(bytes);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Refused(where + " is not valid UTF-8");
        }
    }

    /** A declared length, checked against the bytes left before anything is allocated for it. */
    private static int length(BinaryDecoder in, String what) throws IOException {
        long length = in.readLong();
        long left = remaining(in);
        if (length < 0 || length > left) {
            throw new Refused(" declares a " + what + " of " + length + " bytes where " + left + " are left");
        }
        return (int) length;
    }

    private static long remaining(BinaryDecoder in) throws IOException {
        return in.inputStream().available();
    }

    /** Unwinds the walk, each level adding its part of the path; no stack trace, it never leaves this class. */
    private static final class Refused extends RuntimeException {
        private final String reason;
        private String path = "";

        Refused(String reason) {
            super(null, null, false, false);
            this.reason = reason;
        }

        Refused under(String parent) {
            path = parent + path;
            return this;
        }
    }
}
