package io.cognitionstreams.governance;

import java.util.Optional;

import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.schema.MemoryEntry;

/**
 * What an episodic memory entry on cognition.memory must be to reach prompts: every instance holds every entry,
 * so one bad entry would be searched by every session. Depends on the entry alone, so the assembly's mirror that
 * skips an entry and the guard that dead-letters it agree.
 */
public final class MemoryEntries {

    /** The model prompts are embedded with: only its vectors are comparable with theirs. */
    public static final String MODEL = "all-MiniLM-L6-v2-q";

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
        if (!MODEL.equals(entry.getEmbeddingModel())) {
            return Optional.of("embedded with " + entry.getEmbeddingModel() + ", prompts are embedded with " + MODEL);
        }
        int dimension = entry.getEmbedding().size();
        if (dimension != MiniLmEmbedder.DIMENSION) {
            return Optional.of(dimension + " dimensions, " + MODEL + " vectors have " + MiniLmEmbedder.DIMENSION);
        }
        for (Float value : entry.getEmbedding()) {
            if (!Float.isFinite(value)) {
                return Optional.of("the embedding holds " + value + ": every value must be a finite number");
            }
        }
        return Optional.empty();
    }
}
