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
 * What Avro's Java decoder lets pass: it replaces invalid UTF-8 in strings with U+FFFD without a word (a prompt with
 * broken bytes would reach the model altered), and it ignores bytes after the end of the record. This walks a body
 * that already decoded once more with the writer's schema, so such a record is dead-lettered with the place that
 * is wrong instead of being answered. The path is only put together on the way out of an error: the walk runs for
 * every record read, including each of the episodic memory's 384-float embeddings.
 */
final class StrictBody {

    private StrictBody() {
    }

    /**
     * @throws IllegalArgumentException naming the JSON path of the first string that is not valid UTF-8, or the
     *                                  number of bytes after the record
     */
    static void requireValid(Schema writer, byte[] data, int offset) throws IOException {
        BinaryDecoder in = DecoderFactory.get().binaryDecoder(data, offset, data.length - offset, null);
        try {
            walk(writer, in);
        } catch (NotUtf8 e) {
            throw new IllegalArgumentException("$" + e.path + " is not valid UTF-8");
        }
        if (!in.isEnd()) {
            throw new IllegalArgumentException(in.inputStream().available() + " bytes after the end of the record");
        }
    }

    private static void walk(Schema schema, BinaryDecoder in) throws IOException {
        switch (schema.getType()) {
            case RECORD -> {
                for (Schema.Field field : schema.getFields()) {
                    try {
                        walk(field.schema(), in);
                    } catch (NotUtf8 e) {
                        throw e.under("." + field.name());
                    }
                }
            }
            case UNION -> walk(schema.getTypes().get(in.readIndex()), in);
            case ARRAY -> {
                long index = 0;
                for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                    index = items(schema.getElementType(), n, index, in);
                }
            }
            case MAP -> {
                for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                    for (long i = 0; i < n; i++) {
                        String key = check(in, " (a key)");
                        try {
                            walk(schema.getValueType(), in);
                        } catch (NotUtf8 e) {
                            throw e.under("." + key);
                        }
                    }
                }
            }
            case STRING -> check(in, "");
            case BYTES -> in.skipBytes();
            case FIXED -> in.skipFixed(schema.getFixedSize());
            case ENUM -> in.readEnum();
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case FLOAT -> in.readFloat();
            case DOUBLE -> in.readDouble();
            case BOOLEAN -> in.readBoolean();
            case NULL -> in.readNull();
        }
    }

    /** One block of {@code n} array items, numbered from {@code index}; fixed-size numbers are skipped whole. */
    private static long items(Schema type, long n, long index, BinaryDecoder in) throws IOException {
        switch (type.getType()) {
            case FLOAT -> in.skipFixed((int) (4 * n));
            case DOUBLE -> in.skipFixed((int) (8 * n));
            default -> {
                for (long i = 0; i < n; i++) {
                    try {
                        walk(type, in);
                    } catch (NotUtf8 e) {
                        throw e.under("[" + (index + i) + "]");
                    }
                }
            }
        }
        return index + n;
    }

    private static String check(BinaryDecoder in, String where) throws IOException {
        ByteBuffer bytes = in.readBytes(null);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new NotUtf8(where);
        }
    }

    /** Unwinds the walk, each level adding its part of the path; no stack trace, it never leaves this class. */
    private static final class NotUtf8 extends RuntimeException {
        private String path;

        NotUtf8(String path) {
            super(null, null, false, false);
            this.path = path;
        }

        NotUtf8 under(String parent) {
            path = parent + path;
            return this;
        }
    }
}
