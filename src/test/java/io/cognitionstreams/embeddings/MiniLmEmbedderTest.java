package io.cognitionstreams.embeddings;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

class MiniLmEmbedderTest {

    private static final List<String> SENTENCES = List.of(
            "The database backup restored in four minutes.",
            "How long does restoring the database backup take?",
            "Try a canary deploy for the payment service.");

    @Test
    void itsSingleThreadedSessionGivesTheVectorsOfTheStockModel() {
        List<float[]> ours = MiniLmEmbedder.shared().embed(SENTENCES);
        AllMiniLmL6V2QuantizedEmbeddingModel stock = new AllMiniLmL6V2QuantizedEmbeddingModel(Runnable::run);

        assertThat(ours).hasSize(3).allSatisfy(vector -> assertThat(vector).hasSize(MiniLmEmbedder.DIMENSION));
        for (int i = 0; i < SENTENCES.size(); i++) {
            assertThat(cosine(ours.get(i), stock.embed(SENTENCES.get(i)).content().vector()))
                    .as(SENTENCES.get(i)).isGreaterThan(0.9999);
        }
    }

    @Test
    void relatedSentencesAreCloserThanUnrelatedOnes() {
        List<float[]> vectors = MiniLmEmbedder.shared().embed(SENTENCES);

        assertThat(cosine(vectors.get(0), vectors.get(1))).isGreaterThan(cosine(vectors.get(0), vectors.get(2)) + 0.2);
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return dot / Math.sqrt(na * nb);
    }
}
