package io.cognitionstreams.governance;

import java.util.Optional;
import java.util.Set;

import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.schema.MemoryEntry;

/**
 * What an episodic memory entry on cognition.memory must be to reach prompts: one bad entry would be searched by
 * every session of its scope. Depends on the entry alone, so the assembly's mirror that
 * skips an entry and the guard that dead-letters it agree.
 */
public final class MemoryEntries {

    /**
     * The models memory may be embedded with, both 384-dim. An entry of the other model than the running one is
     * embedded again from its text when loaded (EpisodicMemory), so it is kept, not refused.
     */
    public static final Set<String> MODELS = Set.of(MiniLmEmbedder.MODEL, StaticEmbedder.MODEL);
    private static final int DIMENSION = MiniLmEmbedder.DIMENSION;

    private MemoryEntries() {
    }

    public static Optional<String> refuse(String key, MemoryEntry entry) {
        if (!entry.getBlockId().equals(key)) {
            return Optional.of("memory entry of block " + entry.getBlockId() + " is keyed " + key
                    + "; cognition.memory is keyed by block id");
        }
        if (entry.getScope() != null) {
            Optional<String> problem = MemoryScopes.problem(entry.getScope());
            if (problem.isPresent()) {
                return Optional.of("memory entry of block " + entry.getBlockId() + ": " + problem.get());
            }
        }
        if (!MODELS.contains(entry.getEmbeddingModel())) {
            return Optional.of("embedded with " + entry.getEmbeddingModel() + ", memory is embedded with one of "
                    + MODELS.stream().sorted().toList());
        }
        float[] vector;
        try {
            vector = vector(entry);
        } catch (IllegalArgumentException e) {
            return Optional.of("the vector cannot be read: " + e.getMessage());
        }
        if (vector.length != DIMENSION) {
            return Optional.of(vector.length + " dimensions, " + entry.getEmbeddingModel() + " vectors have "
                    + DIMENSION);
        }
        for (float value : vector) {
            if (!Float.isFinite(value)) {
                return Optional.of("the embedding holds " + value + ": every value must be a finite number");
            }
        }
        return Optional.empty();
    }

    /**
     * The entry's vector as written: its 8-bit form, or the floats of an entry written before that (bytes, or before
     * those an array).
     *
     * @throws IllegalArgumentException the bytes it is in are malformed
     */
    public static float[] vector(MemoryEntry entry) {
        if (entry.getVectorInt8() != null) {
            return Vectors.fromInt8(entry.getVectorInt8());
        }
        if (entry.getVector() != null) {
            return Vectors.fromBytes(entry.getVector());
        }
        float[] vector = new float[entry.getEmbedding().size()];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = entry.getEmbedding().get(i);
        }
        return vector;
    }
}
