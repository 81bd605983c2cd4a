package io.cognitionstreams.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class TextCapTest {

    private static final Pattern CAPPED = Pattern.compile("(.*)\n\\[\\.\\.\\. (\\d+) bytes hidden]\n(.*)",
            Pattern.DOTALL);

    private static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void textWithinTheCapIsKeptAsItIs() {
        assertThat(TextCap.cap("", 0)).isEmpty();
        assertThat(TextCap.cap("hello", 5)).isEqualTo("hello");
        // 3 characters, 7 bytes: the cap is in bytes, and exactly at it is within it
        assertThat(TextCap.cap("aé😀", 7)).isEqualTo("aé😀");
        assertThat(TextCap.cap(null, 10)).isNull();
    }

    @Test
    void longTextKeepsItsHeadAndItsTailAndSaysHowMuchIsHidden() {
        String text = "START" + "x".repeat(1000) + "error: disk full";

        String capped = TextCap.cap(text, 40);

        assertThat(capped).isEqualTo(text.substring(0, 20) + "\n[... " + (bytes(text) - 40) + " bytes hidden]\n"
                + text.substring(text.length() - 20));
        assertThat(capped).startsWith("START").endsWith("error: disk full");
    }

    @Test
    void anOddCapGivesTheTailTheExtraByte() {
        assertThat(TextCap.cap("abcdefghij", 5)).isEqualTo("ab\n[... 5 bytes hidden]\nhij");
    }

    @Test
    void aZeroCapKeepsOnlyTheNote() {
        assertThat(TextCap.cap("abc", 0)).isEqualTo("\n[... 3 bytes hidden]\n");
    }

    @Test
    void cutsNeverFallInsideACharacter() {
        // "€" is 3 bytes: a cut at 5 of "€€€€" would split the second one; it is left out whole instead
        assertThat(TextCap.cap("€€€€", 10)).isEqualTo("€\n[... 6 bytes hidden]\n€");
        assertThat(TextCap.cap("😀😀😀", 8)).isEqualTo("😀\n[... 4 bytes hidden]\n😀");
        // 3 bytes a side cannot hold a 4-byte character: both sides shrink rather than break one
        assertThat(TextCap.cap("😀😀😀", 6)).isEqualTo("\n[... 12 bytes hidden]\n");
    }

    @Test
    void anyTextCappedAnywhereIsItsOwnHeadAndTailAroundTheRightCount() {
        // Mixed 1-, 2-, 3- and 4-byte characters, capped at every size: no broken character, nothing invented.
        String[] alphabet = {"a", " ", "\n", "é", "ß", "€", "中", "😀", "\u0000"};
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(40); i > 0; i--) {
                text.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String original = text.toString();
            for (int max = 0; max <= bytes(original) + 1; max++) {
                String capped = TextCap.cap(original, max);
                if (bytes(original) <= max) {
                    assertThat(capped).isEqualTo(original);
                    continue;
                }
                Matcher parts = CAPPED.matcher(capped);
                assertThat(parts.matches()).as("%s capped at %d: %s", original, max, capped).isTrue();
                String head = parts.group(1);
                String tail = parts.group(3);
                assertThat(capped).doesNotContain("\uFFFD");
                assertThat(original).startsWith(head).endsWith(tail);
                assertThat(bytes(head)).isLessThanOrEqualTo(max / 2);
                assertThat(bytes(tail)).isLessThanOrEqualTo(max - max / 2);
                assertThat(bytes(head) + Integer.parseInt(parts.group(2)) + bytes(tail)).isEqualTo(bytes(original));
            }
        }
    }
}
