package io.cognitionstreams.executor;

import java.nio.charset.StandardCharsets;

/**
 * Caps what a tool returned before it goes on a topic and into the model's history: the head and the tail are kept
 * (a command's error is usually at the end), with a note of how much was left out between them. Cuts fall on
 * character boundaries, so no multi-byte character is broken.
 */
public final class TextCap {

    private TextCap() {
    }

    /** {@code text} if it has at most {@code maxBytes} UTF-8 bytes, else its head and tail and the note. */
    public static String cap(String text, int maxBytes) {
        if (text == null) {
            return null;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return text;
        }
        int head = maxBytes / 2;
        while (head > 0 && continuation(bytes[head])) {
            head--;
        }
        int tail = bytes.length - (maxBytes - maxBytes / 2);
        while (tail < bytes.length && continuation(bytes[tail])) {
            tail++;
        }
        return new String(bytes, 0, head, StandardCharsets.UTF_8) + "\n[... " + (tail - head) + " bytes hidden]\n"
                + new String(bytes, tail, bytes.length - tail, StandardCharsets.UTF_8);
    }

    /** A byte inside a multi-byte character, where no cut may fall. */
    private static boolean continuation(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
