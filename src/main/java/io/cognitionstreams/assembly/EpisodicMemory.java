package io.cognitionstreams.assembly;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.governance.MemoryScopes;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topology.GlobalMirror;

/**
 * Seed 002's episodic memory (RAG over past experiences): blocks routed to channel.memory are embedded once, when
 * they arrive, into the scope of the turn that wrote them, and a packet's layer gets the entries of its own scope
 * most similar to its user prompt.
 *
 * <p>Search runs over the {@link MemoryIndex} the global store keeps decoded: exact, about 1.5 ms per ten thousand
 * distinct memories of a scope (docs/benchmarks.md), and past twenty thousand shortlisted by binary codes first.
 * Embedding the prompt with MiniLM costs more than the search, so it is only done when the scope holds a memory the
 * turn may recall.
 *
 * <p>Prompts and memories are embedded with one model, the run's ({@code --memory-embedder}). An entry stored by the
 * other one is embedded again from its text as it is loaded: its vector is not comparable with our prompts', but its
 * text is the memory, so switching models forgets nothing.
 */
public final class EpisodicMemory {

    /** Below this cosine similarity an entry is noise, not a related experience. */
    public static final double MIN_SIMILARITY = 0.3;

    private final EmbeddingModel model;
    private final MemoryIndex index;

    public EpisodicMemory(EmbeddingModel model, MemoryIndex index) {
        this.model = model;
        this.index = index;
    }

    /** Where and when a block was read: its record on channel.memory. */
    public record Source(String topic, int partition, long offset, Instant writtenAt) {
    }

    /**
     * What a turn of {@code scope} may recall: the scope's memories, and no other scope's; for a re-run turn
     * ({@code asOf} set), only those written by the time the original turn was asked for, so the replay recalls what
     * the original could, not what was learnt since.
     */
    public AssemblyInput.MemorySearch in(String scope, Optional<Instant> asOf) {
        return (query, k) -> search(scope, query, k, asOf).stream().map(MemoryIndex.Hit::text).toList();
    }

    /** The {@code k} memories of {@code scope} most similar to {@code query}, most similar first. */
    public List<MemoryIndex.Hit> search(String scope, String query, int k, Optional<Instant> asOf) {
        long writtenUntil = asOf.map(Instant::toEpochMilli).orElse(Long.MAX_VALUE);
        if (k <= 0 || !index.holdsAny(scope, writtenUntil)) {
            return List.of();
        }
        return index.nearest(scope, Vectors.unit(model.embedder().embed(List.of(query)).get(0)), k, MIN_SIMILARITY,
                writtenUntil);
    }

    /**
     * The entry a block on channel.memory becomes: embedded, in the scope its turn ran with (its session's own when
     * the block names none), stamped with where and when it was written.
     *
     * @throws InvalidRecordException the block is empty, or names a scope no request could have: dead-lettered, not
     *                                remembered
     */
    public static MemoryEntry remember(RoutedBlock block, Source source, EmbeddingModel model) {
        if (block == null || block.getText().isBlank()) {
            throw new InvalidRecordException("memory block is empty: nothing to remember");
        }
        if (block.getMemoryScope() != null) {
            MemoryScopes.problem(block.getMemoryScope()).ifPresent(problem -> {
                throw new InvalidRecordException("memory block " + block.getBlockId() + ": " + problem);
            });
        }
        float[] vector = Vectors.unit(model.embedder().embed(List.of(block.getText())).get(0));
        List<Float> embedding = new ArrayList<>(vector.length);
        for (float value : vector) {
            embedding.add(value);
        }
        return MemoryEntry.newBuilder()
                .setBlockId(block.getBlockId())
                .setSessionId(block.getSessionId())
                .setMarker(block.getMarker())
                .setText(block.getText())
                .setEmbeddingModel(model.name())
                .setEmbedding(embedding)
                .setTimestamp(block.getTimestamp())
                .setTimeTravel(block.getTimeTravel())
                .setParentId(block.getParentId())
                .setOriginSessionId(block.getOriginSessionId())
                .setScope(MemoryScopes.orSession(block.getMemoryScope(), block.getSessionId()))
                .setWrittenAt(source.writtenAt())
                .setSourceTopic(source.topic())
                .setSourcePartition(source.partition())
                .setSourceOffset(source.offset())
                .setRequestId(block.getRequestId())
                .build();
    }

    /**
     * Keeps {@code index} as the memory's global store changes, restores included, with vectors of {@code model}.
     */
    public static GlobalMirror.Listener<MemoryEntry> indexer(MemoryIndex index, EmbeddingModel model) {
        return new GlobalMirror.Listener<>() {
            @Override
            public void put(String key, MemoryEntry entry) {
                index(index, key, entry, model);
            }

            @Override
            public void delete(String key) {
                index.remove(key);
            }
        };
    }

    /**
     * Adds a stored entry to the index, as the global store receives it, with its stored vector when it is of
     * {@code model}, or else embedded again from its text (microseconds with the static model, a MiniLM inference
     * with MiniLM: once per entry per load).
     */
    public static void index(MemoryIndex index, String key, MemoryEntry entry, EmbeddingModel model) {
        float[] vector;
        if (model.name().equals(entry.getEmbeddingModel())) {
            List<Float> embedding = entry.getEmbedding();
            vector = new float[embedding.size()];
            for (int i = 0; i < vector.length; i++) {
                vector[i] = embedding.get(i);
            }
        } else {
            vector = model.embedder().embed(List.of(entry.getText())).get(0);
        }
        // Normalized again: an entry written by another producer need not be unit length.
        index.put(key, MemoryScopes.orSession(entry.getScope(), entry.getSessionId()), entry.getText(),
                writtenAt(entry).toEpochMilli(), Vectors.unit(vector));
    }

    /** When an entry was written; an entry from before written_at has only its block's time. */
    public static Instant writtenAt(MemoryEntry entry) {
        return entry.getWrittenAt() != null ? entry.getWrittenAt() : entry.getTimestamp();
    }
}
