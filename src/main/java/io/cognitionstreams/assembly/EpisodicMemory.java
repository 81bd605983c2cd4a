package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

import io.cognitionstreams.embeddings.SentenceEmbedder;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;

/**
 * Seed 002's episodic memory (RAG over past experiences): blocks routed to channel.memory are embedded once, when
 * they arrive, and a packet's layer gets the entries most similar to its user prompt.
 *
 * <p>Search is exact (a dot product with every entry of the global memory store), which is right for up to some
 * ten thousand entries; a larger memory would need an approximate index. Embedding the prompt costs ~10 ms on this
 * class of machine, so it is only done when there is a memory to search.
 */
public final class EpisodicMemory implements AssemblyInput.MemorySearch {

    /** Below this cosine similarity an entry is noise, not a related experience. */
    public static final double MIN_SIMILARITY = 0.3;
    public static final String MODEL = "all-MiniLM-L6-v2-q";

    private final SentenceEmbedder embedder;
    private final Supplier<List<MemoryEntry>> entries;

    public EpisodicMemory(SentenceEmbedder embedder, Supplier<List<MemoryEntry>> entries) {
        this.embedder = embedder;
        this.entries = entries;
    }

    @Override
    public List<String> similar(String query, int k) {
        List<MemoryEntry> all = entries.get();
        if (all.isEmpty() || k <= 0) {
            return List.of();
        }
        float[] target = unit(embedder.embed(List.of(query)).get(0));
        record Scored(MemoryEntry entry, double score) {
        }
        List<Scored> scored = new ArrayList<>();
        for (MemoryEntry entry : all) {
            double score = dot(target, entry.getEmbedding());
            if (score >= MIN_SIMILARITY) {
                scored.add(new Scored(entry, score));
            }
        }
        // Ties by block id, so the same memory gives the same packet on every instance.
        scored.sort(Comparator.comparingDouble(Scored::score).reversed()
                .thenComparing(s -> s.entry().getBlockId()));
        return scored.stream().limit(k).map(s -> s.entry().getText()).toList();
    }

    public static MemoryEntry remember(RoutedBlock block, SentenceEmbedder embedder) {
        float[] vector = unit(embedder.embed(List.of(block.getText())).get(0));
        List<Float> embedding = new ArrayList<>(vector.length);
        for (float value : vector) {
            embedding.add(value);
        }
        return MemoryEntry.newBuilder()
                .setBlockId(block.getBlockId())
                .setSessionId(block.getSessionId())
                .setMarker(block.getMarker())
                .setText(block.getText())
                .setEmbeddingModel(MODEL)
                .setEmbedding(embedding)
                .setTimestamp(block.getTimestamp())
                .build();
    }

    private static float[] unit(float[] vector) {
        double norm = 0;
        for (float value : vector) {
            norm += value * value;
        }
        norm = Math.sqrt(norm);
        if (norm == 0) {
            return vector;
        }
        float[] unit = new float[vector.length];
        for (int i = 0; i < vector.length; i++) {
            unit[i] = (float) (vector[i] / norm);
        }
        return unit;
    }

    private static double dot(float[] a, List<Float> b) {
        if (b.size() != a.length) {
            return -1;
        }
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b.get(i);
        }
        return sum;
    }
}
