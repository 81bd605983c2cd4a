package io.cognitionstreams.embeddings;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WordPieceTokenizerTest {

    private static final WordPieceTokenizer TOKENIZER = WordPieceTokenizer.miniLm();

    @Test
    void splitsLikeTheModelsOwnTokenizer() {
        // Ids as all-MiniLM-L6-v2's tokenizer.json gives them: lowercased, accents stripped, punctuation apart,
        // an unseen word in WordPieces.
        assertThat(TOKENIZER.encode("Héllo, world! The deploy of billing-api failed; unaffable"))
                .containsExactly(7592, 1010, 2088, 999, 1996, 21296, 1997, 25640, 1011, 17928, 3478, 1025, 14477,
                        20961, 3468);
    }

    @Test
    void anOverlongWordIsOneUnknownToken() {
        assertThat(TOKENIZER.encode("a".repeat(101) + " ok")).containsExactly(WordPieceTokenizer.UNKNOWN,
                TOKENIZER.encode("ok")[0]);
    }

    @Test
    void nothingButSpaceAndControlCharactersIsNoToken() {
        assertThat(TOKENIZER.encode(" \t\n\u0000\u200b")).isEmpty();
    }
}
