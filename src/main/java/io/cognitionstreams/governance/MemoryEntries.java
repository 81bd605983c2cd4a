package io.cognitionstreams.governance;

import java.util.Optional;
import java.util.Set;

import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.schema.MemoryEntry;

/**
 * What an episodic memory entry on cognition.memory must be to reach prompts: every instance holds every entry,
 * so one bad entry would be searched by every session. Depends on the entry alone, so the assembly's mirror that
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
        int dimension = entry.getEmbedding().size();
        if (dimension != DIMENSION) {
            return Optional.of(dimension + " dimensions, " + entry.getEmbeddingModel() + " vectors have " + DIMENSION);
        }
        for (Float value : entry.getEmbedding()) {
            if (!Float.isFinite(value)) {
                return Optional.of("the embedding holds " + value + ": every value must be a finite number");
            }
        }
        return Optional.empty();
    }
}
