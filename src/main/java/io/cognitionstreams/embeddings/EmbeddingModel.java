package io.cognitionstreams.embeddings;

/**
 * An embedder and the name its vectors are stored under: vectors of two models are never compared, so whoever
 * stores a vector stores the name with it.
 */
public record EmbeddingModel(String name, SentenceEmbedder embedder) {

    /** all-MiniLM-L6-v2 behind {@code embedder} (e.g. a cache in front of {@link MiniLmEmbedder#shared()}). */
    public static EmbeddingModel miniLm(SentenceEmbedder embedder) {
        return new EmbeddingModel(MiniLmEmbedder.MODEL, embedder);
    }

    public static EmbeddingModel of(StaticEmbedder embedder) {
        return new EmbeddingModel(StaticEmbedder.MODEL, embedder);
    }
}
