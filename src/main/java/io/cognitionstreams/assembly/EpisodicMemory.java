package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.List;

import io.cognitionstreams.embeddings.SentenceEmbedder;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topology.GlobalMirror;

/**
 * Seed 002's episodic memory (RAG over past experiences): blocks routed to channel.memory are embedded once, when
 * they arrive, and a packet's layer gets the entries most similar to its user prompt.
 *
 * <p>Search is exact, over the {@link MemoryIndex} the global store keeps decoded: about 1.5 ms per ten thousand
 * distinct memories (docs/benchmarks.md), less than embedding the prompt up to some thirty thousand; past that an
 * approximate index would pay off.
 * Embedding the prompt costs more than the search, so it is only done when there is a memory to search.
 */
public final class EpisodicMemory implements AssemblyInput.MemorySearch {

    /** Below this cosine similarity an entry is noise, not a related experience. */
    public static final double MIN_SIMILARITY = 0.3;
    public static final String MODEL = MemoryEntries.MODEL;

    private final SentenceEmbedder embedder;
    private final MemoryIndex index;

    public EpisodicMemory(SentenceEmbedder embedder, MemoryIndex index) {
        this.embedder = embedder;
        this.index = index;
    }

    @Override
    public List<String> similar(String query, int k) {
        if (k <= 0 || index.size() == 0) {
            return List.of();
        }
        return index.nearest(Vectors.unit(embedder.embed(List.of(query)).get(0)), k, MIN_SIMILARITY);
    }

    public static MemoryEntry remember(RoutedBlock block, SentenceEmbedder embedder) {
        float[] vector = Vectors.unit(embedder.embed(List.of(block.getText())).get(0));
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
                .setTimeTravel(block.getTimeTravel())
                .setParentId(block.getParentId())
                .setOriginSessionId(block.getOriginSessionId())
                .build();
    }

    /** Keeps {@code index} as the memory's global store changes, restores included. */
    public static GlobalMirror.Listener<MemoryEntry> indexer(MemoryIndex index) {
        return new GlobalMirror.Listener<>() {
            @Override
            public void put(String key, MemoryEntry entry) {
                index(index, key, entry);
            }

            @Override
            public void delete(String key) {
                index.remove(key);
            }
        };
    }

    /** Adds a stored entry to the index, as the global store receives it. */
    public static void index(MemoryIndex index, String key, MemoryEntry entry) {
        List<Float> embedding = entry.getEmbedding();
        float[] vector = new float[embedding.size()];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = embedding.get(i);
        }
        // Normalized again: an entry written by another producer need not be unit length.
        index.put(key, entry.getText(), Vectors.unit(vector));
    }
}
