package io.cognitionstreams.embeddings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaticEmbedderTest {

    // The table is distilled once per machine (about 6 s) and then read from the cache.
    private static StaticEmbedder embedder;

    @BeforeAll
    static void load() {
        embedder = StaticEmbedder.cachedIn(StaticEmbedder.defaultCache());
    }

    @Test
    void relatedSentencesAreCloserThanUnrelatedOnes() {
        float[] restore = embedder.embed("The database backup restored in four minutes.");
        float[] question = embedder.embed("How long does restoring the database backup take?");
        float[] canary = embedder.embed("Try a canary deploy for the payment service.");

        assertThat(dot(restore, question)).isGreaterThan(dot(restore, canary) + 0.2);
    }

    @Test
    void theSameTextGetsTheSameUnitVectorEveryTime() {
        String text = "VERIFY: Deploy of billing-api v2.3.9 to production passed its health checks.";
        float[] first = embedder.embed(text);

        assertThat(embedder.embed(List.of(text, text))).allSatisfy(vector -> assertThat(vector).containsExactly(first));
        assertThat(StaticEmbedder.cachedIn(StaticEmbedder.defaultCache()).embed(text)).containsExactly(first);
        assertThat(dot(first, first)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    }

    @Test
    void aTextWithoutWordsIsTheZeroVector() {
        for (String text : List.of("", "   \n\t", "\u0000\u200b")) {
            assertThat(embedder.embed(text)).as("%s", text).hasSize(StaticEmbedder.DIMENSION).containsOnly(0f);
        }
    }

    @Test
    void unicodeAndHugeTextsAreEmbedded() {
        float[] accented = embedder.embed("Café déploiement échoué");
        assertThat(accented).isEqualTo(embedder.embed("cafe deploiement echoue"));
        assertThat(dot(embedder.embed("日本語のテキスト 🚀 emoji"), embedder.embed("日本語のテキスト 🚀 emoji")))
                .isGreaterThan(0.99);
        float[] huge = embedder.embed("the build failed again ".repeat(50_000));
        assertThat(dot(huge, embedder.embed("the build failed again"))).isGreaterThan(0.99);
    }

    @Test
    void aCachedTableIsReadBackAndAPartialOneIsIgnored(@TempDir Path directory) throws IOException {
        float[] table = new float[2 * StaticEmbedder.DIMENSION];
        table[5] = 1.5f;
        Path file = directory.resolve("t.f32");
        StaticEmbedder.write(file, table, 2);

        assertThat(StaticEmbedder.read(file, 2)).containsExactly(table);
        assertThat(StaticEmbedder.read(file, 3)).isNull();
        Files.write(file, java.util.Arrays.copyOf(Files.readAllBytes(file), 100));
        assertThat(StaticEmbedder.read(file, 2)).isNull();
        assertThat(StaticEmbedder.read(directory.resolve("missing.f32"), 2)).isNull();
    }

    private static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
