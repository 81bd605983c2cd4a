package io.cognitionstreams.redaction;

import java.nio.CharBuffer;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What the stages scan instead of the text itself: the text in NFKC, with invisible characters (format characters,
 * variation selectors and the other default-ignorable code points) removed, Unicode spaces read as {@code ' '},
 * line and paragraph separators as {@code '\n'}, hyphens, en dashes and minus signs as {@code '-'} (em dashes only
 * between digits: between words they are punctuation), and Cyrillic and Greek look-alikes of Latin letters read as
 * those letters inside words that also hold a Latin letter. So an address written with a fullwidth at sign or a
 * zero-width space inside reads as the plain address, while pure Cyrillic or Greek words keep their letters, and
 * configured rules and word lists in those scripts still match them.
 * <p>
 * Every char of the view knows the span of the text it came from, so a finding in the view becomes a span of the
 * text, widened to whole characters; the output keeps the text as it was everywhere else. Text that needs none of
 * this (all ASCII, or already normal) is its own view and costs one pass over its chars.
 */
final class NormalizedView {

    // Unicode's stream-safe limit: longer runs of marks are cut, so normalising one segment stays cheap.
    private static final int MAX_MARKS = 30;

    private static final int CHANGES = 1;    // NFKC or the folding changes it
    private static final int COMBINES = 2;   // NFKC may merge it into the character before: marks, Hangul jamo
    private static final int WORD = 4;       // letter, digit or mark
    private static final int LATIN = 8;      // letter of the Latin script
    private static final int LOOKALIKE = 16; // Cyrillic or Greek letter drawn like a Latin one

    // Each Cyrillic or Greek look-alike followed by the Latin letter it reads as (UTS #39 confusables).
    private static final String LOOKALIKE_PAIRS =
            // Greek capitals
            "\u0391A\u0392B\u0395E\u0396Z\u0397H\u0399I\u039AK\u039CM\u039DN\u039FO\u03A1P\u03A4T"
            + "\u03A5Y\u03A7X\u03F9C\u037FJ"
            // Greek small
            + "\u03B1a\u03B9i\u03BAk\u03BDv\u03BFo\u03C1p\u03C5u\u03F2c\u03F3j"
            // Cyrillic capitals
            + "\u0410A\u0412B\u0415E\u0405S\u0406I\u0408J\u041AK\u041CM\u041DH\u041EO\u0420P\u0421C"
            + "\u0422T\u0425X\u04AEY\u04BAH\u04C0I\u051AQ\u051CW"
            // Cyrillic small
            + "\u0430a\u0435e\u0455s\u0456i\u0458j\u043Eo\u0440p\u0441c\u0443y\u0445x\u04BBh\u04CFl"
            + "\u0501d\u051Bq\u051Dw";
    private static final char LOOKALIKE_FIRST = 0x370;
    private static final char[] LOOKALIKES = new char[0x530 - LOOKALIKE_FIRST];

    static {
        for (int i = 0; i < LOOKALIKE_PAIRS.length(); i += 2) {
            LOOKALIKES[LOOKALIKE_PAIRS.charAt(i) - LOOKALIKE_FIRST] = LOOKALIKE_PAIRS.charAt(i + 1);
        }
    }

    // Flags of every code point, computed a block of 256 at a time on first use; the first block up front.
    private static final AtomicReferenceArray<byte[]> FLAGS =
            new AtomicReferenceArray<>((Character.MAX_CODE_POINT + 1) >> 8);
    private static final byte[] LATIN_1 = computeBlock(0);

    private final String original;
    private final String text;
    // Span in the original of each char of the view; null when the view is the original.
    private final int[] starts;
    private final int[] ends;

    private NormalizedView(String original, String text, int[] starts, int[] ends) {
        this.original = original;
        this.text = text;
        this.starts = starts;
        this.ends = ends;
    }

    static NormalizedView of(String text) {
        int i = 0;
        while (i < text.length() && text.charAt(i) < 0x80) {
            i++;
        }
        if (i == text.length()) {
            return unchanged(text);
        }
        // The ASCII before i reads as it is, but for the word that runs into i: a look-alike may follow in it.
        while (i > 0 && (Chars.isWord(text.charAt(i - 1)) || text.charAt(i - 1) == '-')) {
            i--;
        }
        return new Builder(text).build(i);
    }

    /** The view of a text known to read as it is written, such as a stretch of one that does. */
    static NormalizedView unchanged(String text) {
        return new NormalizedView(text, text, null, null);
    }

    /** The view is the text itself. */
    boolean isUnchanged() {
        return starts == null;
    }

    /** The text to scan. */
    String text() {
        return text;
    }

    /** Where the view's {@code [start, end)} begins in the original, at the start of a whole character. */
    int originalStart(int start) {
        int i = starts == null ? start : starts[start];
        if (i > 0 && i < original.length() && Character.isLowSurrogate(original.charAt(i))
                && Character.isHighSurrogate(original.charAt(i - 1))) {
            i--;
        }
        while (i > 0 && i < original.length() && combines(original.codePointAt(i))) {
            i -= Character.charCount(original.codePointBefore(i));
        }
        return i;
    }

    /** Where the view's {@code [start, end)} ends in the original, with the marks on its last character. */
    int originalEnd(int end) {
        int i = ends == null ? end : ends[end - 1];
        if (i > 0 && i < original.length() && Character.isLowSurrogate(original.charAt(i))
                && Character.isHighSurrogate(original.charAt(i - 1))) {
            i++;
        }
        while (i < original.length() && combines(original.codePointAt(i))) {
            i += Character.charCount(original.codePointAt(i));
        }
        return i;
    }

    private static boolean combines(int codePoint) {
        return (flags(codePoint) & COMBINES) != 0;
    }

    private static int flags(int codePoint) {
        if (codePoint < LATIN_1.length) {
            return LATIN_1[codePoint];
        }
        byte[] block = FLAGS.getAcquire(codePoint >> 8);
        if (block == null) {
            // Threads racing here compute the same bytes.
            block = computeBlock(codePoint >> 8);
            FLAGS.setRelease(codePoint >> 8, block);
        }
        return block[codePoint & 0xFF];
    }

    private static byte[] computeBlock(int block) {
        byte[] flags = new byte[256];
        for (int k = 0; k < 256; k++) {
            flags[k] = (byte) computeFlags((block << 8) + k);
        }
        return flags;
    }

    private static int computeFlags(int codePoint) {
        int type = Character.getType(codePoint);
        boolean mark = type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
                || type == Character.ENCLOSING_MARK;
        int flags = 0;
        if (fold(codePoint) != codePoint || isLongDash(codePoint)
                || !Normalizer.isNormalized(Character.toString(codePoint), Normalizer.Form.NFKC)) {
            flags |= CHANGES;
        }
        // Hangul vowel and final jamo compose with the syllable before them.
        if (mark || (codePoint >= 0x1161 && codePoint <= 0x1175) || (codePoint >= 0x11A8 && codePoint <= 0x11C2)) {
            flags |= COMBINES;
        }
        if (mark || codePoint == '_' || Character.isLetterOrDigit(codePoint)) {
            flags |= WORD;
        }
        if (Character.isLetter(codePoint) && Character.UnicodeScript.of(codePoint) == Character.UnicodeScript.LATIN) {
            flags |= LATIN;
        }
        if (latinLookalike(codePoint) != 0) {
            flags |= LOOKALIKE;
        }
        return flags;
    }

    /** What a code point of NFKC output reads as: itself, a space, a newline, a dash, or -1 for nothing. */
    private static int fold(int codePoint) {
        int type = Character.getType(codePoint);
        if (type == Character.FORMAT || isDefaultIgnorable(codePoint)) {
            return -1;
        }
        if (type == Character.SPACE_SEPARATOR) {
            return ' ';
        }
        if (type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR) {
            return '\n';
        }
        return isDash(codePoint) ? '-' : codePoint;
    }

    // Default_Ignorable_Code_Point beyond the format characters: variation selectors, fillers, the grapheme joiner.
    private static boolean isDefaultIgnorable(int c) {
        return c == 0x034F || c == 0x115F || c == 0x1160 || c == 0x17B4 || c == 0x17B5 || (c >= 0x180B && c <= 0x180F)
                || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFFA0 || (c >= 0xE0000 && c <= 0xE0FFF);
    }

    // Hyphens, the en dash and minus signs: U+2011 and the small and fullwidth forms reach here through NFKC.
    private static boolean isDash(int c) {
        return (c >= 0x2010 && c <= 0x2013) || c == 0x2043 || c == 0x2212;
    }

    // Em dash and longer (the small and vertical forms through NFKC): see Builder.betweenDigits.
    private static boolean isLongDash(int c) {
        return c == 0x2014 || c == 0x2015 || c == 0x2E3A || c == 0x2E3B;
    }

    private static char latinLookalike(int codePoint) {
        int i = codePoint - LOOKALIKE_FIRST;
        return i >= 0 && i < LOOKALIKES.length ? LOOKALIKES[i] : 0;
    }

    /**
     * One pass over the text, segment by segment (a character and the marks on it). The view stays the text itself
     * until the first segment that reads differently; only then are the view and its spans written out.
     */
    private static final class Builder {

        private final String s;
        private StringBuilder view;
        private int[] starts;
        private int[] ends;
        private int length;
        // The word being read: where it starts in the view, and whether it holds a look-alike.
        private int wordStart;
        private boolean lookalike;

        Builder(String s) {
            this.s = s;
        }

        /** The view of the text, which up to {@code from} reads as it is and holds no word that may change. */
        NormalizedView build(int from) {
            length = from;
            wordStart = from;
            int n = s.length();
            int p = from;
            while (p < n) {
                char c = s.charAt(p);
                if (c < 0x80 && !lookalike) {
                    // The common case: a run of ASCII, which reads as it is and never combines, while no look-alike
                    // waits for the end of its word. Only word starts need keeping.
                    int run = p;
                    int start = wordStart;
                    for (; p < n && (c = s.charAt(p)) < 0x80; p++) {
                        if ((LATIN_1[c] & WORD) == 0 && c != '-') {
                            start = length + p - run + 1;
                        }
                    }
                    if (view != null) {
                        view.append(s, run, p);
                        spans(run, p - run);
                    }
                    length += p - run;
                    wordStart = start;
                    continue;
                }
                if (c < 0x80) {
                    keep(p, p + 1, c, LATIN_1[c]);
                    p++;
                    continue;
                }
                int first = s.codePointAt(p);
                int firstFlags = flags(first);
                int changes = firstFlags & CHANGES;
                int firstEnd = p + Character.charCount(first);
                int end = firstEnd;
                for (int marks = 0; end < n && marks < MAX_MARKS && s.charAt(end) >= 0x80; marks++) {
                    int next = s.codePointAt(end);
                    int nextFlags = flags(next);
                    if ((nextFlags & COMBINES) == 0) {
                        break;
                    }
                    changes |= nextFlags & CHANGES;
                    end += Character.charCount(next);
                }
                boolean marksMerge = end > firstEnd
                        && !Normalizer.isNormalized(CharBuffer.wrap(s, p, end), Normalizer.Form.NFKC);
                if (changes != 0 || marksMerge) {
                    normalize(p, end);
                } else {
                    keepEach(p, end);
                }
                p = end;
            }
            closeWord(length);
            return view == null ? unchanged(s) : new NormalizedView(s, view.toString(), starts, ends);
        }

        // The code point at [from, to) reads as it is.
        private void keep(int from, int to, int codePoint, int flags) {
            int at = length;
            if (view != null) {
                view.append(s, from, to);
                spans(from, to - from);
            }
            length += to - from;
            read(codePoint, flags, at);
        }

        private void keepEach(int from, int to) {
            for (int i = from; i < to; ) {
                int codePoint = s.codePointAt(i);
                int next = i + Character.charCount(codePoint);
                keep(i, next, codePoint, flags(codePoint));
                i = next;
            }
        }

        // NFKC and the folding of a segment; every char they make of it stands for the whole segment.
        private void normalize(int from, int to) {
            String normal = Normalizer.normalize(CharBuffer.wrap(s, from, to), Normalizer.Form.NFKC);
            StringBuilder folded = new StringBuilder(normal.length());
            for (int i = 0; i < normal.length(); ) {
                int codePoint = normal.codePointAt(i);
                i += Character.charCount(codePoint);
                int read = fold(codePoint);
                if (isLongDash(read) && betweenDigits(to)) {
                    read = '-';
                }
                if (read >= 0) {
                    folded.appendCodePoint(read);
                }
            }
            if (CharSequence.compare(folded, CharBuffer.wrap(s, from, to)) == 0) {
                // An em dash between words: nothing to write out.
                keepEach(from, to);
                return;
            }
            materialize();
            for (int i = 0; i < folded.length(); ) {
                int codePoint = folded.codePointAt(i);
                int at = length;
                view.appendCodePoint(codePoint);
                length = view.length();
                ensureCapacity(length);
                for (int k = at; k < length; k++) {
                    starts[k] = from;
                    ends[k] = to;
                }
                read(codePoint, flags(codePoint), at);
                i += Character.charCount(codePoint);
            }
        }

        /**
         * Whether the view so far ends in a digit and the text from {@code next} goes on with one, invisible
         * characters aside. Between digits a long dash separates a number's groups (123—45—6789); between words it
         * is punctuation, and read as a hyphen it would glue them: "key—sk-..." would look like a kebab-case name.
         */
        private boolean betweenDigits(int next) {
            if (length == 0 || !Chars.isDigit((view == null ? s : view).charAt(length - 1))) {
                return false;
            }
            while (next < s.length()) {
                int codePoint = s.codePointAt(next);
                if (fold(codePoint) >= 0) {
                    return Character.isDigit(codePoint);
                }
                next += Character.charCount(codePoint);
            }
            return false;
        }

        private void spans(int from, int count) {
            ensureCapacity(length + count);
            for (int k = 0; k < count; k++) {
                starts[length + k] = from + k;
                ends[length + k] = from + k + 1;
            }
        }

        // Tracks words, and at the end of one that mixes Latin letters with look-alikes, reads those as Latin.
        private void read(int codePoint, int flags, int at) {
            if ((flags & WORD) != 0 || codePoint == '-') {
                lookalike |= (flags & LOOKALIKE) != 0;
            } else {
                closeWord(at);
                wordStart = length;
            }
        }

        private void closeWord(int end) {
            if (lookalike && hasLatinLetter(wordStart, end)) {
                materialize();
                for (int k = wordStart; k < end; k++) {
                    char latinLetter = latinLookalike(view.charAt(k));
                    if (latinLetter != 0) {
                        view.setCharAt(k, latinLetter);
                    }
                }
            }
            lookalike = false;
        }

        // Looked at only for words with a look-alike, which are rare outside Cyrillic and Greek text.
        private boolean hasLatinLetter(int from, int to) {
            CharSequence read = view == null ? s : view;
            for (int k = from; k < to; ) {
                int codePoint = Character.codePointAt(read, k);
                if ((flags(codePoint) & LATIN) != 0) {
                    return true;
                }
                k += Character.charCount(codePoint);
            }
            return false;
        }

        // The view so far is the text so far; from here on it is written out.
        private void materialize() {
            if (view != null) {
                return;
            }
            view = new StringBuilder(s.length() + 16).append(s, 0, length);
            starts = new int[s.length() + 16];
            ends = new int[starts.length];
            int kept = length;
            length = 0;
            spans(0, kept);
            length = kept;
        }

        private void ensureCapacity(int capacity) {
            if (capacity > starts.length) {
                int grown = Math.max(capacity, starts.length * 2);
                starts = Arrays.copyOf(starts, grown);
                ends = Arrays.copyOf(ends, grown);
            }
        }
    }
}
