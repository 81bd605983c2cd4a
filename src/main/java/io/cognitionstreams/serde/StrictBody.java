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
 * is wrong instead of being answered.
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
        walk(writer, in, "$");
        if (!in.isEnd()) {
            throw new IllegalArgumentException(in.inputStream().available() + " bytes after the end of the record");
        }
    }

    private static void walk(Schema schema, BinaryDecoder in, String path) throws IOException {
        switch (schema.getType()) {
            case RECORD -> {
                for (Schema.Field field : schema.getFields()) {
                    walk(field.schema(), in, path + "." + field.name());
                }
            }
            case UNION -> walk(schema.getTypes().get(in.readIndex()), in, path);
            case ARRAY -> {
                long index = 0;
                for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                    for (long i = 0; i < n; i++) {
                        walk(schema.getElementType(), in, path + "[" + index++ + "]");
                    }
                }
            }
            case MAP -> {
                for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                    for (long i = 0; i < n; i++) {
                        String key = check(in, path + " (a key)");
                        walk(schema.getValueType(), in, path + "." + key);
                    }
                }
            }
            case STRING -> check(in, path);
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

    private static String check(BinaryDecoder in, String path) throws IOException {
        ByteBuffer bytes = in.readBytes(null);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(path + " is not valid UTF-8");
        }
    }
}
