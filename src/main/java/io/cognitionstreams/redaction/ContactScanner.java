package io.cognitionstreams.redaction;

import static io.cognitionstreams.redaction.Chars.at;
import static io.cognitionstreams.redaction.Chars.digits;
import static io.cognitionstreams.redaction.Chars.digitsEnd;
import static io.cognitionstreams.redaction.Chars.isDigit;
import static io.cognitionstreams.redaction.Chars.isWord;
import static io.cognitionstreams.redaction.Chars.numberContinues;
import static io.cognitionstreams.redaction.Chars.numberStarts;

import java.util.List;

/** E-mail addresses and phone numbers. */
final class ContactScanner {

    private static final int E164_MAX_DIGITS = 15;
    private static final int INTERNATIONAL_MIN_DIGITS = 8;
    private static final int INTERNATIONAL_MAX_GROUPS = 8;
    private static final int NATIONAL_MIN_DIGITS = 10;
    /** German mobiles (0151 12345678) and long landlines (033203 123456) have 12; UK numbers 11, French 10. */
    private static final int NATIONAL_MAX_DIGITS = 12;
    private static final int TRUNK_MAX_GROUPS = 4;

    private ContactScanner() {
    }

    static void scan(String s, List<Hit> out) {
        emails(s, out);
        phones(s, out);
    }

    /**
     * local@domain: the local part is letters, digits and . _ % + - (leading dots dropped); the domain is two or more
     * labels of letters, digits and hyphens, the last one all letters and at least two long. Anchored on each @.
     */
    private static void emails(String s, List<Hit> out) {
        for (int at = s.indexOf('@'); at >= 0; at = s.indexOf('@', at + 1)) {
            int start = at;
            while (isLocalPart(at(s, start - 1))) {
                start--;
            }
            while (start < at && s.charAt(start) == '.') {
                start++;
            }
            int end = start < at ? domainEnd(s, at + 1) : -1;
            if (end > 0) {
                out.add(Hit.of(start, end, PiiType.EMAIL));
            }
        }
    }

    private static boolean isLocalPart(char c) {
        return Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
    }

    /** End of the longest run of labels from {@code i} whose last label is a top-level domain, or -1. */
    private static int domainEnd(String s, int i) {
        int end = -1;
        int labels = 0;
        while (true) {
            int start = i;
            while (Character.isLetterOrDigit(at(s, i)) || at(s, i) == '-') {
                i++;
            }
            if (i == start) {
                return end;
            }
            labels++;
            if (labels >= 2 && isTopLevel(s, start, i)) {
                end = i;
            }
            if (at(s, i) != '.') {
                return end;
            }
            i++;
        }
    }

    private static boolean isTopLevel(String s, int start, int end) {
        for (int i = start; i < end; i++) {
            if (!Character.isLetter(s.charAt(i))) {
                return false;
            }
        }
        return end - start >= 2;
    }

    /**
     * Three shapes, each with separators, so that plain numbers, dates and ids stay:
     * <ul>
     *   <li>international: + then 8 to 15 digits in groups split by single spaces, dashes or dots, a group may be in
     *       parentheses: +1 (555) 123-4567, +44 20 7946 0958, +49 30 12345678, +4930123456;</li>
     *   <li>North American: (555) 123-4567, 555-123-4567, 555.123.4567, each optionally after 1 and a separator;</li>
     *   <li>national with trunk prefix 0 and area code: 020 7946 0958, 030 12345678, 030/12345678, (030) 12345678,
     *       01 23 45 67 89, 0151 12345678: 10 to 12 digits, the area code (0 and 1 to 5 digits) not starting 00, the
     *       local number not starting 0, its groups split by one kind of separator.</li>
     * </ul>
     * Digits running on past the maximum count drop whole trailing groups, so a number followed by a year is still
     * found.
     */
    private static void phones(String s, List<Hit> out) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            int end;
            if (c == '+') {
                end = international(s, i);
            } else if ((c == '(' || isDigit(c)) && numberStarts(s, i) && !isJoiner(at(s, i - 1))) {
                end = northAmerican(s, i);
                if (end < 0) {
                    end = trunkZero(s, i);
                }
            } else {
                continue;
            }
            if (end > 0) {
                out.add(Hit.of(i, end, PiiType.PHONE));
                i = end - 1;
            }
        }
    }

    // Before a national number these make it part of something else: ORD-555-123-4567, +555..., a/555...
    private static boolean isJoiner(char c) {
        return c == '-' || c == '+' || c == '/';
    }

    private static int international(String s, int plus) {
        char before = at(s, plus - 1);
        if (isWord(before) || before == '+' || !isDigit(at(s, plus + 1))) {
            return -1;
        }
        int[] ends = new int[INTERNATIONAL_MAX_GROUPS];
        int[] totals = new int[INTERNATIONAL_MAX_GROUPS];
        int groups = 0;
        int digits = 0;
        int i = plus + 1;
        while (groups < INTERNATIONAL_MAX_GROUPS) {
            boolean parenthesized = at(s, i) == '(';
            if (parenthesized) {
                int close = digitsEnd(s, i + 1);
                if (close == i + 1 || close - i - 1 > 4 || at(s, close) != ')') {
                    break;
                }
                digits += close - i - 1;
                i = close + 1;
            } else if (isDigit(at(s, i))) {
                int end = digitsEnd(s, i);
                digits += end - i;
                i = end;
            } else {
                break;
            }
            ends[groups] = i;
            totals[groups] = digits;
            groups++;
            char sep = at(s, i);
            boolean nextGroup = isDigit(at(s, i + 1)) || at(s, i + 1) == '(';
            if ((sep == ' ' || sep == '-' || sep == '.') && nextGroup) {
                i++;
            } else if (sep != '(' && !(parenthesized && isDigit(sep))) {
                // Groups touch only across a parenthesis: +44 (0)20, +1(555)123.
                break;
            }
        }
        return longestFit(s, ends, totals, groups, INTERNATIONAL_MIN_DIGITS, E164_MAX_DIGITS);
    }

    // (555) 123-4567, (555)123-4567, 555-123-4567, 555.123.4567, with or without a leading "1 " or "1-".
    private static int northAmerican(String s, int start) {
        char sep = at(s, start + 1);
        if (at(s, start) == '1' && (sep == ' ' || sep == '-' || sep == '.')) {
            int end = areaAndNumber(s, start + 2);
            if (end > 0) {
                return end;
            }
        }
        return areaAndNumber(s, start);
    }

    private static int areaAndNumber(String s, int i) {
        if (at(s, i) == '(') {
            if (!digits(s, i + 1, 3) || at(s, i + 4) != ')') {
                return -1;
            }
            i += at(s, i + 5) == ' ' ? 6 : 5;
        } else {
            char sep = at(s, i + 3);
            if (!digits(s, i, 3) || (sep != '-' && sep != '.')) {
                return -1;
            }
            i += 4;
        }
        char sep = at(s, i + 3);
        if (!digits(s, i, 3) || (sep != '-' && sep != '.' && sep != ' ') || !digits(s, i + 4, 4)) {
            return -1;
        }
        return numberContinues(s, i + 8) ? -1 : i + 8;
    }

    private static int trunkZero(String s, int start) {
        boolean parenthesized = at(s, start) == '(';
        int i = parenthesized ? start + 1 : start;
        if (at(s, i) != '0' || at(s, i + 1) < '1' || at(s, i + 1) > '9') {
            return -1;
        }
        int areaEnd = digitsEnd(s, i);
        // 0 and up to 5 digits: German area codes run to 5 (033203), UK ones to 4 (01632), French to 1.
        if (areaEnd - i > 6) {
            return -1;
        }
        int digits = areaEnd - i;
        // Separator between the subscriber groups, once known.
        char sep = 0;
        if (parenthesized) {
            if (at(s, areaEnd) != ')') {
                return -1;
            }
            i = at(s, areaEnd + 1) == ' ' ? areaEnd + 2 : areaEnd + 1;
        } else {
            char trunkSep = at(s, areaEnd);
            if (trunkSep != ' ' && trunkSep != '-' && trunkSep != '/') {
                return -1;
            }
            sep = trunkSep == '/' ? 0 : trunkSep;
            i = areaEnd + 1;
        }
        if (at(s, i) == '0') {
            // Local numbers do not start with 0: "0532 0130 01" is a fragment of something else.
            return -1;
        }
        int[] ends = new int[TRUNK_MAX_GROUPS];
        int[] totals = new int[TRUNK_MAX_GROUPS];
        int groups = 0;
        while (groups < TRUNK_MAX_GROUPS) {
            int end = digitsEnd(s, i);
            if (end - i < 2 || end - i > 8) {
                break;
            }
            digits += end - i;
            ends[groups] = end;
            totals[groups] = digits;
            groups++;
            char next = at(s, end);
            if ((next != ' ' && next != '-') || (sep != 0 && next != sep) || !isDigit(at(s, end + 1))) {
                break;
            }
            sep = next;
            i = end + 1;
        }
        return longestFit(s, ends, totals, groups, NATIONAL_MIN_DIGITS, NATIONAL_MAX_DIGITS);
    }

    /**
     * End of the longest run of whole groups with a digit total in {@code [min, max]} that the text does not
     * continue. Only a cut before a space may leave digits behind: 030-1234-5678-9 is one longer number, not a phone
     * number and a 9, while +1 415 555 0132 0a is a phone number and a word.
     */
    private static int longestFit(String s, int[] ends, int[] totals, int groups, int min, int max) {
        for (int g = groups - 1; g >= 0; g--) {
            if (totals[g] > max) {
                continue;
            }
            if (totals[g] < min) {
                return -1;
            }
            if (numberContinues(s, ends[g])) {
                // Groups glued to a word or to more digits (+1 415 555 0132 0.0a) are not this number: try the
                // shorter run, which a cut inside 030-1234-5678-9 never yields (it cannot end at a space).
                continue;
            }
            return ends[g];
        }
        return -1;
    }
}
