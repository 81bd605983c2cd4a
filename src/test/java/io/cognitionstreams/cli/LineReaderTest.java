package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class LineReaderTest {

    @Test
    void splitsOnLfDropsTheCrOfCrlfAndKeepsEveryOtherByte() throws IOException {
        byte[] input = {'a', '\n', 'b', '\r', '\n', '\n', (byte) 0xFF, '\r', 'x', '\n', 'l', 'a', 's', 't'};

        assertThat(lines(new ByteArrayInputStream(input), 100))
                .containsExactly("a", "b", "", "\\xFF\rx", "last");
    }

    @Test
    void aFinalLfEndsTheLastLineAndAddsNoEmptyOne() throws IOException {
        assertThat(lines(stream("one\ntwo\n"), 100)).containsExactly("one", "two");
        assertThat(lines(stream(""), 100)).isEmpty();
    }

    @Test
    void aLineOverTheLimitIsCountedNotKeptAndTheNextLineIsWhole() throws IOException {
        String big = "x".repeat(200_000);
        LineReader reader = new LineReader(stream("12345\n" + big + "\r\n123456\nok"), 5);

        assertThat(reader.next().bytes()).isEqualTo(bytes("12345"));
        LineReader.Line oversized = reader.next();
        assertThat(oversized.oversized()).isTrue();
        assertThat(oversized.size()).isEqualTo(200_000);
        assertThat(reader.next().size()).isEqualTo(6);
        assertThat(reader.next().bytes()).isEqualTo(bytes("ok"));
        assertThat(reader.next()).isNull();
    }

    @Test
    void aLineOfExactlyTheLimitFitsWithOrWithoutItsCr() throws IOException {
        LineReader reader = new LineReader(stream("abcde\r\nabcde\n"), 5);

        assertThat(reader.next().bytes()).isEqualTo(bytes("abcde"));
        assertThat(reader.next().bytes()).isEqualTo(bytes("abcde"));
    }

    @Test
    void linesSplitAcrossReadsComeOutWhole() throws IOException {
        InputStream trickle = new ByteArrayInputStream(bytes("first\r\nsecond\n")) {
            @Override
            public synchronized int read(byte[] buffer, int offset, int length) {
                return super.read(buffer, offset, Math.min(length, 1));
            }
        };

        assertThat(lines(trickle, 100)).containsExactly("first", "second");
    }

    private static List<String> lines(InputStream input, int limit) throws IOException {
        LineReader reader = new LineReader(input, limit);
        List<String> lines = new ArrayList<>();
        for (LineReader.Line line = reader.next(); line != null; line = reader.next()) {
            StringBuilder text = new StringBuilder();
            for (byte b : line.bytes()) {
                text.append(b >= 0 ? String.valueOf((char) b) : String.format("\\x%02X", b & 0xFF));
            }
            lines.add(text.toString());
        }
        return lines;
    }

    private static InputStream stream(String text) {
        return new ByteArrayInputStream(bytes(text));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
