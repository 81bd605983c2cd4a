package io.cognitionstreams.serde;

/** Sizes and checks of text as it goes on the wire, without encoding or decoding it. */
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

    /**
     * Whether {@code bytes[from, to)} is well-formed UTF-8 as the Unicode standard defines it (its table 3-7) and the
     * JDK's decoder with {@code CodingErrorAction.REPORT} accepts it: no overlong forms, no surrogates, nothing past
     * U+10FFFF, no sequence cut short. Checked in place, without decoding.
     */
    static boolean wellFormed(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to) {
            int lead = bytes[i];
            if (lead >= 0) {
                i++;
                continue;
            }
            lead &= 0xff;
            int length;
            int low = 0x80;
            int high = 0xbf;
            if (lead >= 0xc2 && lead <= 0xdf) {
                length = 2;
            } else if (lead >= 0xe0 && lead <= 0xef) {
                length = 3;
                if (lead == 0xe0) {
                    low = 0xa0; // below is an overlong form
                } else if (lead == 0xed) {
                    high = 0x9f; // above are the surrogates
                }
            } else if (lead >= 0xf0 && lead <= 0xf4) {
                length = 4;
                if (lead == 0xf0) {
                    low = 0x90; // below is an overlong form
                } else if (lead == 0xf4) {
                    high = 0x8f; // above is past U+10FFFF
                }
            } else {
                return false; // a continuation byte first, an overlong two-byte lead, or no lead at all
            }
            if (to - i < length) {
                return false;
            }
            int second = bytes[i + 1] & 0xff;
            if (second < low || second > high) {
                return false;
            }
            for (int k = 2; k < length; k++) {
                if ((bytes[i + k] & 0xc0) != 0x80) {
                    return false;
                }
            }
            i += length;
        }
        return true;
    }
}
