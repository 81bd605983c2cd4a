package io.cognitionstreams.serde;

/** Sizes of text as it goes on the wire, without encoding it. */
public final class Utf8 {

    private Utf8() {
    }

    /** The UTF-8 length of {@code text}; an unpaired surrogate counts as the 3 bytes of its replacement. */
    public static long length(CharSequence text) {
        long bytes = 0;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
