package io.cognitionstreams.redaction;

/** Character tests shared by the scanners. All are ASCII-exact except {@link #isWord}. */
final class Chars {

    private static final boolean[] ASCII_WORD = new boolean[128];

    static {
        for (char c = 0; c < 128; c++) {
            ASCII_WORD[c] = c == '_' || isAsciiAlnum(c);
        }
    }

    private Chars() {
    }

    /** The char at {@code i}, or NUL outside the text: NUL is no digit, letter or separator, so no bounds checks. */
    static char at(String s, int i) {
        return i >= 0 && i < s.length() ? s.charAt(i) : '\0';
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    static boolean isUpper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    static boolean isAsciiAlnum(char c) {
        return isAsciiLetter(c) || isDigit(c);
    }

    /** Part of a word in any script, digits and underscore included. */
    static boolean isWord(char c) {
        return c < 128 ? ASCII_WORD[c] : Character.isLetterOrDigit(c);
    }

    /** The alphabet of base64url, of API keys and of JWT segments. */
    static boolean isToken(char c) {
        return isAsciiAlnum(c) || c == '-' || c == '_';
    }

    static int digitsEnd(String s, int i) {
        while (isDigit(at(s, i))) {
            i++;
        }
        return i;
    }

    /** Exactly {@code count} digits start at {@code i}, and no more. */
    static boolean digits(String s, int i, int count) {
        return digitsEnd(s, i) == i + count;
    }

    /** A number starts at {@code i}: not inside a word, and not the tail of 1.5, 1,5, 1-5 or 1/5. */
    static boolean numberStarts(String s, int i) {
        char before = at(s, i - 1);
        if (isWord(before)) {
            return false;
        }
        boolean joiner = before == '.' || before == ',' || before == '-' || before == '/';
        return !(joiner && isDigit(at(s, i - 2)));
    }

    /** The number that ends at {@code end} goes on: a word char follows, or a joiner and a digit. */
    static boolean numberContinues(String s, int end) {
        char after = at(s, end);
        if (isWord(after)) {
            return true;
        }
        boolean joiner = after == '.' || after == ',' || after == '-' || after == '/';
        if (after == ':') {
            // An IPv6 address or a port (+1 415 555 0132 0::): were the number to end inside it, the address's
            // hit would overlap it and win, and the phone number before it would stay in clear.
            char next = at(s, end + 1);
            return next == ':' || Character.digit(next, 16) >= 0;
        }
        return joiner && isDigit(at(s, end + 1));
    }
}
