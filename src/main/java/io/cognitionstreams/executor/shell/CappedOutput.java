package io.cognitionstreams.executor.shell;

import java.nio.charset.StandardCharsets;

/**
 * One output stream of a command, of which only the first half of the cap and the last half are kept, however much
 * is written: memory stays at the cap while a command writes gigabytes. Thread-safe: a reader thread writes while
 * the runner may take a snapshot (when a process it cannot kill keeps the stream open).
 */
final class CappedOutput {

    /** The kept text, and how many bytes of the stream are not in it. */
    record Captured(String text, long hiddenBytes) {
    }

    private final byte[] head;
    /** A ring: once full, {@code tailNext} is where its oldest byte is. */
    private final byte[] tail;
    private int headLength;
    private int tailNext;
    private long total;

    CappedOutput(int cap) {
        head = new byte[cap / 2];
        tail = new byte[cap - cap / 2];
    }

    synchronized void write(byte[] bytes, int offset, int length) {
        total += length;
        int toHead = Math.min(length, head.length - headLength);
        System.arraycopy(bytes, offset, head, headLength, toHead);
        headLength += toHead;
        offset += toHead;
        length -= toHead;
        if (length > tail.length) {
            offset += length - tail.length;
            length = tail.length;
        }
        while (length > 0) {
            int chunk = Math.min(length, tail.length - tailNext);
            System.arraycopy(bytes, offset, tail, tailNext, chunk);
            tailNext = (tailNext + chunk) % tail.length;
            offset += chunk;
            length -= chunk;
        }
    }

    synchronized Captured snapshot() {
        long pastHead = total - headLength;
        int kept = (int) Math.min(pastHead, tail.length);
        byte[] last = new byte[kept];
        int oldest = pastHead >= tail.length ? tailNext : 0;
        int firstPart = Math.min(kept, tail.length - oldest);
        System.arraycopy(tail, oldest, last, 0, firstPart);
        System.arraycopy(tail, 0, last, firstPart, kept - firstPart);
        if (pastHead <= tail.length) {
            byte[] all = new byte[headLength + kept];
            System.arraycopy(head, 0, all, 0, headLength);
            System.arraycopy(last, 0, all, headLength, kept);
            return new Captured(new String(all, StandardCharsets.UTF_8), 0);
        }
        int headEnd = endOfWholeCharacters(head, headLength);
        int tailStart = startOfWholeCharacters(last);
        long hidden = total - headEnd - (kept - tailStart);
        String text = new String(head, 0, headEnd, StandardCharsets.UTF_8)
                + "\n[... " + hidden + " bytes hidden]\n"
                + new String(last, tailStart, kept - tailStart, StandardCharsets.UTF_8);
        return new Captured(text, hidden);
    }

    /** Where the head ends without a character cut in two: before a lead byte whose sequence does not fit. */
    private static int endOfWholeCharacters(byte[] bytes, int length) {
        for (int i = length - 1; i >= Math.max(0, length - 4); i--) {
            int b = bytes[i] & 0xFF;
            if ((b & 0xC0) != 0x80) {
                return i + sequenceLength(b) <= length ? length : i;
            }
        }
        return length; // not UTF-8 here: any cut is as good as another, the decoder replaces what is malformed
    }

    /** Where the tail starts without the remains of a character: past at most three continuation bytes. */
    private static int startOfWholeCharacters(byte[] bytes) {
        int start = 0;
        while (start < Math.min(3, bytes.length) && (bytes[start] & 0xC0) == 0x80) {
            start++;
        }
        return start;
    }

    private static int sequenceLength(int leadByte) {
        if (leadByte >= 0xF0 && leadByte < 0xF8) {
            return 4;
        }
        if (leadByte >= 0xE0 && leadByte < 0xF0) {
            return 3;
        }
        return leadByte >= 0xC0 && leadByte < 0xE0 ? 2 : 1;
    }
}
