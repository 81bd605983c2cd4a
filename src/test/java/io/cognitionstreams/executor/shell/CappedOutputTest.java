package io.cognitionstreams.executor.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class CappedOutputTest {

    @Test
    void whatFitsIsKeptWhole() {
        CappedOutput output = new CappedOutput(10);
        write(output, "0123456789");

        assertThat(output.snapshot()).isEqualTo(new CappedOutput.Captured("0123456789", 0));
    }

    @Test
    void beyondTheCapTheHeadAndTheTailAreKeptWithTheExactCountBetween() {
        CappedOutput output = new CappedOutput(10);
        write(output, "0123456789A");

        assertThat(output.snapshot()).isEqualTo(new CappedOutput.Captured("01234\n[... 1 bytes hidden]\n6789A", 1));
    }

    @Test
    void theTailIsTheLastBytesHoweverTheyWereWritten() {
        CappedOutput oneByOne = new CappedOutput(9);
        CappedOutput inOneGo = new CappedOutput(9);
        String text = "abcdefghijklmnopqrstuvwxyz".repeat(7);
        for (char c : text.toCharArray()) {
            write(oneByOne, String.valueOf(c));
        }
        write(inOneGo, text);

        CappedOutput.Captured expected = new CappedOutput.Captured("abcd\n[... 173 bytes hidden]\nvwxyz", 173);
        assertThat(oneByOne.snapshot()).isEqualTo(expected);
        assertThat(inOneGo.snapshot()).isEqualTo(expected);
    }

    @Test
    void aCutNeverSplitsACharacterAndTheDroppedPiecesAreCounted() {
        CappedOutput output = new CappedOutput(10);
        write(output, "€".repeat(10)); // 3 bytes each: 5 kept bytes at either end hold one whole euro sign

        assertThat(output.snapshot()).isEqualTo(new CappedOutput.Captured("€\n[... 24 bytes hidden]\n€", 24));
    }

    @Test
    void fourByteCharactersAtBothCuts() {
        CappedOutput output = new CappedOutput(10);
        write(output, "ab" + "😀".repeat(5) + "cd"); // 24 bytes; 5 at either end cut an emoji

        assertThat(output.snapshot()).isEqualTo(new CappedOutput.Captured("ab\n[... 20 bytes hidden]\ncd", 20));
    }

    @Test
    void aCharacterAcrossTheHeadAndTheTailIsWholeWhenNothingIsHidden() {
        CappedOutput output = new CappedOutput(8);
        write(output, "abcé"); // é straddles the head (4 bytes) and the tail
        write(output, "xyz");

        assertThat(output.snapshot()).isEqualTo(new CappedOutput.Captured("abcéxyz", 0));
    }

    @Test
    void bytesThatAreNotUtf8AreReplacedNotLost() {
        CappedOutput output = new CappedOutput(8);
        output.write(new byte[] {'o', 'k', (byte) 0xFF, '!'}, 0, 4);

        assertThat(output.snapshot()).isEqualTo(new CappedOutput.Captured("ok\uFFFD!", 0));
    }

    private static void write(CappedOutput output, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        output.write(bytes, 0, bytes.length);
    }
}
