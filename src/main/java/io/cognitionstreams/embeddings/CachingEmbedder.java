package io.cognitionstreams.embeddings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Remembers the vectors of the most recently embedded texts. Agents repeat themselves (the same VERIFY verdict, the
 * same retried prompt, the same sentences in a protocol compressed again), and each embedding costs milliseconds
 * of CPU; a hit costs a hash lookup. Thread-safe; the lock is not held while the model runs.
 */
public final class CachingEmbedder implements SentenceEmbedder {

    private final SentenceEmbedder model;
    private final Map<String, float[]> recent;

    public CachingEmbedder(SentenceEmbedder model, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.model = model;
        this.recent = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
                return size() > capacity;
            }
        };
    }

    @Override
    public List<float[]> embed(List<String> sentences) {
        float[][] vectors = new float[sentences.size()][];
        List<String> missing = new ArrayList<>();
        synchronized (recent) {
            for (int i = 0; i < vectors.length; i++) {
                vectors[i] = recent.get(sentences.get(i));
                if (vectors[i] == null) {
                    missing.add(sentences.get(i));
                }
            }
        }
        if (!missing.isEmpty()) {
            List<String> distinct = missing.stream().distinct().toList();
            List<float[]> computed = model.embed(distinct);
            Map<String, float[]> fresh = new LinkedHashMap<>();
            for (int i = 0; i < distinct.size(); i++) {
                fresh.put(distinct.get(i), computed.get(i));
            }
            synchronized (recent) {
                recent.putAll(fresh);
            }
            for (int i = 0; i < vectors.length; i++) {
                if (vectors[i] == null) {
                    vectors[i] = fresh.get(sentences.get(i));
                }
            }
        }
        List<float[]> copies = new ArrayList<>(vectors.length);
        for (float[] vector : vectors) {
            // Copies: a caller that scales its vector in place must not change the cached one.
            copies.add(vector.clone());
        }
        return copies;
    }
}
