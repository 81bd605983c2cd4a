package io.cognitionstreams.serde;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.apache.avro.Schema;

/**
 * What Avro's Java decoder lets pass or cannot bear. It replaces invalid UTF-8 in strings with U+FFFD without a word
 * (a prompt with broken bytes would reach the model altered), it ignores bytes after the end of the record, and it
 * allocates whatever length a string, bytes value or array block declares before it reads a byte: a body of a few
 * bytes declaring a 2 GiB string ended a test JVM with OutOfMemoryError, an Error no dead-letter handler sees, and
 * {@link AvroLimits} only helps if it ran before Avro's first use. So this walks every body with the writer's schema
 * <em>before</em> Avro decodes it, refusing any length the bytes left cannot hold, and naming the place that is
 * wrong.
 *
 * <p>It runs for every record every capability reads, so it reads the bytes in place: no copy of a string, no
 * decoder, nothing allocated unless the body is refused (at 2,000 requests a second the copying version was a tenth
 * of all the pipeline allocated). The path is only put together on the way out of an error.
 */
final class StrictBody {

    private StrictBody() {
    }

    /**
     * @throws IllegalArgumentException naming the JSON path of the first string that is not valid UTF-8 or of the
     *                                  first length longer than the bytes left, or the number of bytes after the
     *                                  record
     * @throws IOException              if the body ends early or a number's encoding runs past its length
     */
    static void requireValid(Schema writer, byte[] data, int offset) throws IOException {
        Body in = new Body(data, offset);
        try {
            walk(writer, in);
        } catch (Refused e) {
            throw new IllegalArgumentException("$" + e.path + e.reason);
        }
        if (in.left() > 0) {
            throw new IllegalArgumentException(in.left() + " bytes after the end of the record");
        }
    }

    private static void walk(Schema schema, Body in) throws IOException {
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
                int branch = in.readInt();
                if (branch < 0 || branch >= schema.getTypes().size()) {
                    throw new Refused(" names union branch " + branch + ", out of range of its " + schema.getTypes().size());
                }
                walk(schema.getTypes().get(branch), in);
            }
            case ARRAY -> {
                long index = 0;
                for (long n = in.readBlockCount(); n != 0; n = in.readBlockCount()) {
                    index = items(schema.getElementType(), block(n, in), index, in);
                }
            }
            case MAP -> {
                for (long n = in.readBlockCount(); n != 0; n = in.readBlockCount()) {
                    for (long i = block(n, in); i > 0; i--) {
                        int key = in.position();
                        check(in, " (a key)");
                        try {
                            walk(schema.getValueType(), in);
                        } catch (Refused e) {
                            throw e.under("." + in.keyAt(key));
                        }
                    }
                }
            }
            case STRING -> check(in, "");
            case BYTES -> in.skip(length(in, "bytes value"));
            case FIXED -> in.skip(schema.getFixedSize());
            case ENUM -> {
                int symbol = in.readInt();
                if (symbol < 0 || symbol >= schema.getEnumSymbols().size()) {
                    throw new Refused(" names enum symbol " + symbol + ", out of range of its "
                            + schema.getEnumSymbols().size());
                }
            }
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case FLOAT -> in.skip(4);
            case DOUBLE -> in.skip(8);
            case BOOLEAN -> in.skip(1);
            case NULL -> {
            }
        }
    }

    /**
     * A block's item count, refused when the bytes left cannot hold that many items: every type the app's schemas
     * put in an array or map takes at least one byte, and Avro sizes its list by the declared count.
     */
    private static int block(long n, Body in) {
        long left = in.left();
        if (n < 0 || n > left) {
            throw new Refused(" declares " + n + " items where " + left + " bytes are left");
        }
        return (int) n;
    }

    /** One block of {@code n} array items, numbered from {@code index}; fixed-size numbers are skipped whole. */
    private static long items(Schema type, int n, long index, Body in) throws IOException {
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

    private static void skipFixedSize(Body in, long bytes) throws IOException {
        long left = in.left();
        if (bytes > left) {
            throw new Refused(" declares " + bytes + " bytes of numbers where " + left + " are left");
        }
        in.skip((int) bytes);
    }

    private static void check(Body in, String where) throws IOException {
        int length = length(in, "string" + where);
        if (!Utf8.wellFormed(in.data, in.pos, in.pos + length)) {
            throw new Refused(where + " is not valid UTF-8");
        }
        in.skip(length);
    }

    /** A declared length, checked against the bytes left before anything is allocated for it. */
    private static int length(Body in, String what) throws IOException {
        long length = in.readLong();
        long left = in.left();
        if (length < 0 || length > left) {
            throw new Refused(" declares a " + what + " of " + length + " bytes where " + left + " are left");
        }
        return (int) length;
    }

    /**
     * The body's bytes and a position in them, read as Avro's binary decoder reads them: zig-zag varints of at most
     * 5 (int) or 10 (long) bytes, whose last byte may not continue; block counts whose negative form is followed by
     * the block's size in bytes.
     */
    private static final class Body {
        private final byte[] data;
        private int pos;

        Body(byte[] data, int offset) {
            this.data = data;
            this.pos = offset;
        }

        int position() {
            return pos;
        }

        int left() {
            return data.length - pos;
        }

        void skip(int bytes) throws EOFException {
            if (bytes > left()) {
                throw new EOFException("the body ends " + (bytes - left()) + " bytes early");
            }
            pos += bytes;
        }

        int readInt() throws IOException {
            int raw = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int b = next();
                raw |= (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw new IOException("an int's encoding runs past 5 bytes");
        }

        long readLong() throws IOException {
            long raw = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                int b = next();
                raw |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw new IOException("a long's encoding runs past 10 bytes");
        }

        long readBlockCount() throws IOException {
            long count = readLong();
            if (count < 0) {
                readLong(); // the block's size in bytes, which a reader may use to skip it
                return -count;
            }
            return count;
        }

        /** The map key whose length starts at {@code at}, already checked: only read on the way out of an error. */
        String keyAt(int at) throws IOException {
            int here = pos;
            pos = at;
            int length = (int) readLong();
            String key = new String(data, pos, length, StandardCharsets.UTF_8);
            pos = here;
            return key;
        }

        private int next() throws EOFException {
            if (pos >= data.length) {
                throw new EOFException("the body ends early");
            }
            return data[pos++] & 0xff;
        }
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
