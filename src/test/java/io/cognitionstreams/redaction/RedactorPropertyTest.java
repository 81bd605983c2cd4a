package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

/** Valid PII generated at random, dropped at random places into random prose: all of it goes, all prose stays. */
class RedactorPropertyTest {

    private static final String[] PROSE = {
            "the", "quick", "report", "shows", "that", "we", "should", "deploy", "on", "Monday", "after", "review",
            "budget", "plan", "team", "model", "output", "router", "stream", "value", "order", "Please", "note",
            "Thanks!", "(see", "above)", "it's", "fine,", "done.", "3.5", "#7", "$12", "v2", "x86", "e.g.", "-", "--",
            "Q3", "ok:", "a/b", "[draft]"};
    // Other scripts and typography, no digits (a number next to a card could extend it).
    private static final String[] MULTILINGUAL_PROSE = {
            "the", "report", "shows", "\u0441\u0435\u0440\u0432\u0435\u0440",
            "\u0440\u0430\u0431\u043E\u0442\u0430\u0435\u0442",
            "\u03C0\u03C1\u03BF\u03CA\u03CC\u03BD", "\u30D3\u30EB\u30C9\uFF08\u6210\u529F\uFF09\u3002",
            "\uFF21\uFF30\uFF29", "so\u2014called", "na\u00EFve", "\u2014", "\uD83D\uDC4D\uD83C\uDFFD",
            "\u2714\uFE0F", "caf\u00E9", "\u0915\u093F\u0924\u093E\u092C", "Stra\u00DFe,", "\u2026"};
    private static final String[] CLOSERS = {"", "", "", ",", ".", ";", ":", "!"};
    private static final char[] INVISIBLE = {'\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\uFE0F',
            '\u202E', '\u2066'};
    private static final char[] SPACES = {' ', '\u00A0', '\u202F', '\u2009', '\u3000'};
    // Drawn like a hyphen. An em dash reads as one only between digits, so it would break a domain name.
    private static final char[] DASHES = {'-', '\u2010', '\u2011', '\u2013', '\u2212', '\uFF0D'};
    private static final String[] TLDS = {"com", "org", "io", "de", "co.uk"};

    private final Random random = new Random(20261122L);

    @Test
    void generatedPiiNeverSurvivesAndTheProseAroundItDoes() {
        check(PROSE, UnaryOperator.identity());
    }

    @Test
    void disguisedPiiNeverSurvivesAndTheProseAroundItStaysAsWritten() {
        check(MULTILINGUAL_PROSE, this::disguise);
    }

    private void check(String[] prose, UnaryOperator<String> disguise) {
        Redactor redactor = Redactor.defaults();
        for (int round = 0; round < 500; round++) {
            StringBuilder text = new StringBuilder();
            StringBuilder expected = new StringBuilder();
            Map<String, Integer> counts = new TreeMap<>();
            int tokens = 3 + random.nextInt(40);
            for (int t = 0; t < tokens; t++) {
                if (t > 0) {
                    String gap = random.nextInt(8) == 0 ? "\n" : " ";
                    text.append(gap);
                    expected.append(gap);
                }
                if (random.nextInt(4) > 0) {
                    String word = prose[random.nextInt(prose.length)];
                    text.append(word);
                    expected.append(word);
                    continue;
                }
                String type = switch (random.nextInt(3)) {
                    case 0 -> "CARD";
                    case 1 -> "IBAN";
                    default -> "EMAIL";
                };
                String pii = disguise.apply(switch (type) {
                    case "CARD" -> card();
                    case "IBAN" -> iban();
                    default -> email();
                });
                boolean parenthesized = random.nextInt(6) == 0;
                String open = parenthesized ? "(" : "";
                String close = parenthesized ? ")" : CLOSERS[random.nextInt(CLOSERS.length)];
                text.append(open).append(pii).append(close);
                expected.append(open).append("[REDACTED:").append(type).append(']').append(close);
                counts.merge(type, 1, Integer::sum);
            }

            Redaction redaction = redactor.redact(text.toString());

            assertThat(redaction.text()).as("redacting %s", text).isEqualTo(expected.toString());
            assertThat(redaction.counts()).as("counts for %s", text).isEqualTo(counts);
            // What channel topics' last check relies on: a second pass finds nothing the first one left.
            assertThat(redactor.redact(redaction.text()).total()).as("second pass over %s", redaction.text()).isZero();
        }
    }

    /**
     * The same characters written another way at random: fullwidth letters, digits and at sign, other spaces and
     * dashes, and invisible characters between them (never at either end, so the tag covers them all).
     */
    private String disguise(String pii) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < pii.length(); i++) {
            char c = pii.charAt(i);
            boolean often = random.nextInt(3) == 0;
            if (c == ' ') {
                out.append(SPACES[random.nextInt(SPACES.length)]);
            } else if (c == '-') {
                out.append(DASHES[random.nextInt(DASHES.length)]);
            } else if (often && (Character.isLetterOrDigit(c) || c == '@' || c == '.')) {
                // The fullwidth forms sit at a fixed distance from ASCII.
                out.append((char) (c + 0xFEE0));
            } else {
                out.append(c);
            }
            if (i + 1 < pii.length() && random.nextInt(5) == 0) {
                out.append(INVISIBLE[random.nextInt(INVISIBLE.length)]);
            }
        }
        return out.toString();
    }

    /** Visa 16, Mastercard 16 or Amex 15 digits with a valid Luhn digit, compact or in its printed groups. */
    private String card() {
        String prefix;
        int length;
        switch (random.nextInt(3)) {
            case 0 -> {
                prefix = "4";
                length = 16;
            }
            case 1 -> {
                prefix = "5" + (1 + random.nextInt(5));
                length = 16;
            }
            default -> {
                prefix = random.nextBoolean() ? "34" : "37";
                length = 15;
            }
        }
        StringBuilder digits = new StringBuilder(prefix);
        while (digits.length() < length - 1) {
            digits.append(random.nextInt(10));
        }
        digits.append(luhnDigit(digits));
        String sep = switch (random.nextInt(3)) {
            case 0 -> "";
            case 1 -> " ";
            default -> "-";
        };
        if (sep.isEmpty()) {
            return digits.toString();
        }
        int[] groups = length == 15 ? new int[] {4, 6, 5} : new int[] {4, 4, 4, 4};
        StringBuilder grouped = new StringBuilder();
        int at = 0;
        for (int group : groups) {
            grouped.append(at == 0 ? "" : sep).append(digits, at, at + group);
            at += group;
        }
        return grouped.toString();
    }

    private static int luhnDigit(CharSequence payload) {
        int sum = 0;
        for (int i = payload.length() - 1, k = 0; i >= 0; i--, k++) {
            int d = payload.charAt(i) - '0';
            if (k % 2 == 0) {
                d = d * 2 > 9 ? d * 2 - 9 : d * 2;
            }
            sum += d;
        }
        return (10 - sum % 10) % 10;
    }

    /** A German, British or Dutch IBAN with check digits computed by BigInteger, compact or in groups of four. */
    private String iban() {
        String country;
        String bban;
        switch (random.nextInt(3)) {
            case 0 -> {
                country = "DE";
                bban = digits(18);
            }
            case 1 -> {
                country = "GB";
                bban = letters(4) + digits(14);
            }
            default -> {
                country = "NL";
                bban = letters(4) + digits(10);
            }
        }
        StringBuilder numeric = new StringBuilder();
        for (char c : (bban + country + "00").toCharArray()) {
            numeric.append(Character.isDigit(c) ? String.valueOf(c) : String.valueOf(c - 'A' + 10));
        }
        int check = 98 - new BigInteger(numeric.toString()).mod(BigInteger.valueOf(97)).intValue();
        String iban = country + (check < 10 ? "0" : "") + check + bban;
        if (random.nextBoolean()) {
            return iban;
        }
        StringBuilder grouped = new StringBuilder();
        for (int i = 0; i < iban.length(); i += 4) {
            grouped.append(i == 0 ? "" : " ").append(iban, i, Math.min(i + 4, iban.length()));
        }
        return grouped.toString();
    }

    private String email() {
        String local = lower(2 + random.nextInt(7));
        switch (random.nextInt(4)) {
            case 0 -> local += "." + lower(1 + random.nextInt(6));
            case 1 -> local += "+" + lower(3);
            case 2 -> local += "_" + random.nextInt(100);
            default -> {
            }
        }
        String domain = lower(2 + random.nextInt(8)) + (random.nextBoolean() ? "-" + lower(3) : "");
        return local + "@" + domain + "." + TLDS[random.nextInt(TLDS.length)];
    }

    private String digits(int count) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < count; i++) {
            out.append(random.nextInt(10));
        }
        return out.toString();
    }

    private String letters(int count) {
        return lower(count).toUpperCase();
    }

    private String lower(int count) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < count; i++) {
            out.append((char) ('a' + random.nextInt(26)));
        }
        return out.toString();
    }
}
