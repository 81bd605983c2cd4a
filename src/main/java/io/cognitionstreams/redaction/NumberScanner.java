package io.cognitionstreams.redaction;

import static io.cognitionstreams.redaction.Chars.at;
import static io.cognitionstreams.redaction.Chars.digits;
import static io.cognitionstreams.redaction.Chars.digitsEnd;
import static io.cognitionstreams.redaction.Chars.isDigit;
import static io.cognitionstreams.redaction.Chars.isUpper;
import static io.cognitionstreams.redaction.Chars.isWord;
import static io.cognitionstreams.redaction.Chars.numberContinues;
import static io.cognitionstreams.redaction.Chars.numberStarts;

import java.util.List;
import java.util.Map;

/** Payment cards (Luhn), IBANs (mod 97) and US social security numbers. */
final class NumberScanner {

    // IBAN length per country, from the SWIFT IBAN registry.
    private static final Map<String, Integer> IBAN_LENGTHS = Map.ofEntries(
            Map.entry("AD", 24), Map.entry("AE", 23), Map.entry("AL", 28), Map.entry("AT", 20),
            Map.entry("AZ", 28), Map.entry("BA", 20), Map.entry("BE", 16), Map.entry("BG", 22),
            Map.entry("BH", 22), Map.entry("BI", 27), Map.entry("BR", 29), Map.entry("BY", 28),
            Map.entry("CH", 21), Map.entry("CR", 22), Map.entry("CY", 28), Map.entry("CZ", 24),
            Map.entry("DE", 22), Map.entry("DJ", 27), Map.entry("DK", 18), Map.entry("DO", 28),
            Map.entry("EE", 20), Map.entry("EG", 29), Map.entry("ES", 24), Map.entry("FI", 18),
            Map.entry("FK", 18), Map.entry("FO", 18), Map.entry("FR", 27), Map.entry("GB", 22),
            Map.entry("GE", 22), Map.entry("GI", 23), Map.entry("GL", 18), Map.entry("GR", 27),
            Map.entry("GT", 28), Map.entry("HN", 28), Map.entry("HR", 21), Map.entry("HU", 28),
            Map.entry("IE", 22), Map.entry("IL", 23), Map.entry("IQ", 23), Map.entry("IS", 26),
            Map.entry("IT", 27), Map.entry("JO", 30), Map.entry("KW", 30), Map.entry("KZ", 20),
            Map.entry("LB", 28), Map.entry("LC", 32), Map.entry("LI", 21), Map.entry("LT", 20),
            Map.entry("LU", 20), Map.entry("LV", 21), Map.entry("LY", 25), Map.entry("MC", 27),
            Map.entry("MD", 24), Map.entry("ME", 22), Map.entry("MK", 19), Map.entry("MN", 20),
            Map.entry("MR", 27), Map.entry("MT", 31), Map.entry("MU", 30), Map.entry("NI", 28),
            Map.entry("NL", 18), Map.entry("NO", 15), Map.entry("OM", 23), Map.entry("PK", 24),
            Map.entry("PL", 28), Map.entry("PS", 29), Map.entry("PT", 25), Map.entry("QA", 29),
            Map.entry("RO", 24), Map.entry("RS", 22), Map.entry("RU", 33), Map.entry("SA", 24),
            Map.entry("SC", 31), Map.entry("SD", 18), Map.entry("SE", 24), Map.entry("SI", 19),
            Map.entry("SK", 24), Map.entry("SM", 27), Map.entry("SO", 23), Map.entry("ST", 25),
            Map.entry("SV", 28), Map.entry("TL", 23), Map.entry("TN", 24), Map.entry("TR", 26),
            Map.entry("UA", 29), Map.entry("VA", 22), Map.entry("VG", 24), Map.entry("XK", 20),
            Map.entry("YE", 30));
    private static final int MAX_GROUPS = 5;

    private NumberScanner() {
    }

    static void scan(String s, List<Hit> out) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (!isDigit(s.charAt(i)) || isDigit(at(s, i - 1)) || !numberStarts(s, i)) {
                continue;
            }
            int end = card(s, i);
            if (end > 0) {
                out.add(Hit.of(i, end, PiiType.CARD));
                i = end - 1;
            } else if (isSsn(s, i)) {
                out.add(Hit.of(i, i + 11, PiiType.SSN));
                i += 10;
            }
        }
        ibans(s, out);
    }

    /**
     * 13 to 19 digits whose first digits and length fit a card network (see {@link #fitsNetwork}), passing Luhn.
     * Either unbroken, or in the printed layouts 4-4-4-4(-1..3), 4-4-4-1..4, 4-6-5 and 4-6-4 with one kind of
     * separator, space or dash. The longest layout that passes wins, so "4111 1111 1111 1111 2026" is a card and
     * a year.
     */
    private static int card(String s, int start) {
        int run = digitsEnd(s, start);
        int length = run - start;
        if (length >= 13 && length <= 19) {
            return !numberContinues(s, run) && fitsNetwork(s, start, length) && luhn(s, start, run) ? run : -1;
        }
        char sep = at(s, run);
        if (length != 4 || (sep != ' ' && sep != '-')) {
            return -1;
        }
        int[] lengths = new int[MAX_GROUPS];
        int[] ends = new int[MAX_GROUPS];
        lengths[0] = 4;
        ends[0] = run;
        int groups = 1;
        while (groups < MAX_GROUPS && at(s, ends[groups - 1]) == sep && isDigit(at(s, ends[groups - 1] + 1))) {
            int end = digitsEnd(s, ends[groups - 1] + 1);
            lengths[groups] = end - ends[groups - 1] - 1;
            ends[groups] = end;
            groups++;
        }
        for (int g = groups; g >= 3; g--) {
            int end = ends[g - 1];
            if (isCardLayout(lengths, g) && !numberContinues(s, end) && fitsNetwork(s, start, sum(lengths, g))
                    && luhn(s, start, end)) {
                return end;
            }
        }
        return -1;
    }

    private static boolean isCardLayout(int[] lengths, int groups) {
        switch (groups) {
            case 3:
                return lengths[0] == 4 && lengths[1] == 6 && (lengths[2] == 4 || lengths[2] == 5);
            case 4:
                return lengths[0] == 4 && lengths[1] == 4 && lengths[2] == 4 && lengths[3] >= 1 && lengths[3] <= 4;
            case 5:
                return lengths[0] == 4 && lengths[1] == 4 && lengths[2] == 4 && lengths[3] == 4
                        && lengths[4] >= 1 && lengths[4] <= 3;
            default:
                return false;
        }
    }

    private static int sum(int[] lengths, int groups) {
        int sum = 0;
        for (int g = 0; g < groups; g++) {
            sum += lengths[g];
        }
        return sum;
    }

    /**
     * The first two digits against the networks' lengths: Mastercard 2x (16); Amex 34, 37 (15); Diners 30, 36, 38,
     * 39 (14-19); JCB 35 (16-19); Visa 4 (13, 16, 19); Mastercard and Maestro 5 (16-19); Discover, UnionPay and
     * Maestro 6 (16-19). Numbers starting 0, 1, 7, 8 or 9 are not taken for cards.
     */
    private static boolean fitsNetwork(String s, int start, int digits) {
        char second = s.charAt(start + 1);
        return switch (s.charAt(start)) {
            case '2' -> digits == 16;
            case '3' -> switch (second) {
                case '4', '7' -> digits == 15;
                case '0', '6', '8', '9' -> digits >= 14;
                case '5' -> digits >= 16;
                default -> false;
            };
            case '4' -> digits == 13 || digits == 16 || digits == 19;
            case '5', '6' -> digits >= 16;
            default -> false;
        };
    }

    /** Luhn over the digits of {@code [start, end)}, separators skipped. */
    private static boolean luhn(String s, int start, int end) {
        int sum = 0;
        boolean twice = false;
        for (int i = end - 1; i >= start; i--) {
            char c = s.charAt(i);
            if (!isDigit(c)) {
                continue;
            }
            int d = c - '0';
            if (twice) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            twice = !twice;
        }
        return sum % 10 == 0;
    }

    /** ddd-dd-dddd outside the never-issued ranges: area 000, 666 and 900-999, group 00, serial 0000. */
    private static boolean isSsn(String s, int i) {
        if (!digits(s, i, 3) || at(s, i + 3) != '-' || !digits(s, i + 4, 2) || at(s, i + 6) != '-'
                || !digits(s, i + 7, 4) || numberContinues(s, i + 11)) {
            return false;
        }
        int area = Integer.parseInt(s, i, i + 3, 10);
        int group = Integer.parseInt(s, i + 4, i + 6, 10);
        int serial = Integer.parseInt(s, i + 7, i + 11, 10);
        return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0;
    }

    /**
     * Country code, two check digits and the country's registered length of capital letters and digits, compact
     * or in groups of four split by single spaces, passing ISO 7064 mod 97-10.
     */
    private static void ibans(String s, List<Hit> out) {
        int n = s.length();
        for (int i = 0; i + 4 <= n; i++) {
            if (!isUpper(s.charAt(i)) || !isUpper(s.charAt(i + 1)) || !isDigit(s.charAt(i + 2))
                    || !isDigit(s.charAt(i + 3)) || isWord(at(s, i - 1))) {
                continue;
            }
            int end = ibanEnd(s, i);
            if (end > 0) {
                out.add(Hit.of(i, end, PiiType.IBAN));
                i = end - 1;
            }
        }
    }

    private static int ibanEnd(String s, int start) {
        Integer length = IBAN_LENGTHS.get(s.substring(start, start + 2));
        if (length == null) {
            return -1;
        }
        char[] iban = new char[length];
        int count = 0;
        int i = start;
        while (count < length) {
            char c = at(s, i);
            if (isUpper(c) || isDigit(c)) {
                iban[count++] = c;
                i++;
            } else if (c == ' ' && count % 4 == 0 && (isUpper(at(s, i + 1)) || isDigit(at(s, i + 1)))) {
                i++;
            } else {
                return -1;
            }
        }
        return !isWord(at(s, i)) && mod97(iban) == 1 ? i : -1;
    }

    /** The IBAN's remainder mod 97 with its first four characters moved to the end and letters as 10..35. */
    private static int mod97(char[] iban) {
        int remainder = 0;
        for (int k = 0; k < iban.length; k++) {
            char c = iban[(k + 4) % iban.length];
            remainder = isDigit(c) ? (remainder * 10 + (c - '0')) % 97 : (remainder * 100 + (c - 'A' + 10)) % 97;
        }
        return remainder;
    }
}
