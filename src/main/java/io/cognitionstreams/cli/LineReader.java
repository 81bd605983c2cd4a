package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Lines of bytes, split on LF with a CR before it dropped, and nothing else touched: a reader would stop at the
 * first invalid UTF-8 (a file) or replace it silently (stdin), and --raw must send the bytes exactly as given.
 * A line longer than the limit is not kept: its bytes are counted and dropped as they arrive, so one huge line
 * costs no more memory than the limit.
 */
final class LineReader {

    /** One line: its bytes, or for a line over the limit none, with how long it was. */
    record Line(byte[] bytes, long size) {
        boolean oversized() {
            return bytes == null;
        }
    }

    private final InputStream input;
    private final int limit;
    private final byte[] chunk = new byte[64 * 1024];
    private int position;
    private int end;
    // One byte past the limit is kept, so a line of exactly the limit can still end in the CR of a CRLF.
    private byte[] line = new byte[256];

    LineReader(InputStream input, int limit) {
        this.input = input;
        this.limit = limit;
    }

    /** The next line, or null at the end of the input. */
    Line next() throws IOException {
        long size = 0;
        int kept = 0;
        int last = -1;
        while (true) {
            if (position == end) {
                end = Math.max(input.read(chunk), 0);
                position = 0;
                if (end == 0) {
                    return size == 0 ? null : finish(size, kept, last);
                }
            }
            int newline = position;
            while (newline < end && chunk[newline] != '\n') {
                newline++;
            }
            int length = newline - position;
            if (length > 0) {
                int keep = (int) Math.min(length, Math.max(0, limit + 1L - kept));
                if (keep > 0) {
                    if (kept + keep > line.length) {
                        line = Arrays.copyOf(line, Math.max(kept + keep, Math.min(line.length * 2, limit + 1)));
                    }
                    System.arraycopy(chunk, position, line, kept, keep);
                    kept += keep;
                }
                size += length;
                last = chunk[newline - 1];
            }
            position = newline;
            if (newline < end) {
                position++;
                return finish(size, kept, last);
            }
        }
    }

    private Line finish(long size, int kept, int last) {
        long content = last == '\r' ? size - 1 : size;
        if (content > limit) {
            return new Line(null, content);
        }
        return new Line(Arrays.copyOf(line, (int) content), content);
    }
}
