package io.cognitionstreams.assembly;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.governance.MemoryScopes;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.MemoryLookup;
import io.cognitionstreams.schema.RoutedBlock;

/**
 * Seed 002's episodic memory (RAG over past experiences): blocks routed to channel.memory are embedded once, when
 * they arrive, into the scope of the turn that wrote them, and a packet's layer gets the entries of its own scope
 * most similar to its user prompt.
 *
 * <p>One of these per task of the assembly: the memories of the scopes whose owner ({@link MemoryScopes#owner}) is
 * in the task's partition, in its state store ({@link Entries}), which cognition.memory, partitioned by owner, fills.
 * A session's own memories are so in the task of its requests, and each shared scope's in one task, wherever the
 * sessions that search it are. Scopes in use are searched on {@link Shelf shelves} in the heap, loaded from the store
 * and bounded with every other task's of the instance ({@link MemoryShelves}).
 *
 * <p>Prompts and memories are embedded with one model, the run's ({@code --memory-embedder}). An entry stored by the
 * other one is embedded again from its text as it is kept: its vector is not comparable with our prompts', but its
 * text is the memory, so switching models forgets nothing.
 */
public final class EpisodicMemory {

    /** Below this cosine similarity an entry is noise, not a related experience. */
    public static final double MIN_SIMILARITY = 0.3;
    /** The length of every vector memory holds: both models' (MemoryEntries refuses any other). */
    static final int DIMENSION = MiniLmEmbedder.DIMENSION;

    /** The entries of the scopes one task holds: its state store. */
    public interface Entries {
        Optional<MemoryEntry> get(String scope, String id);

        void put(String scope, MemoryEntry entry);

        void delete(String scope, String id);

        /** Every entry of {@code scope}. */
        void forEach(String scope, Consumer<MemoryEntry> each);

        /** At most {@code max} entries of any scope after position {@code after} (null: from the first), in order. */
        List<Positioned> after(String after, int max);

        /** An entry and where it is in the store, to go on from. */
        record Positioned(String position, String scope, MemoryEntry entry) {
        }
    }

    /** Where and when a block was read: its record on channel.memory. */
    public record Source(String topic, int partition, long offset, Instant writtenAt) {
    }

    /** An entry to forget: what retention drops. */
    public record Forgotten(String scope, String id) {
    }

    private final EmbeddingModel model;
    private final MemoryShelves shelves;
    private final String task;
    private final Entries entries;

    /** @param task the task's name, under which its shelves are held */
    public EpisodicMemory(EmbeddingModel model, MemoryShelves shelves, String task, Entries entries) {
        this.model = model;
        this.shelves = shelves;
        this.task = task;
        this.entries = entries;
    }

    public EmbeddingModel model() {
        return model;
    }

    /**
     * What a turn of {@code scope} may recall: the scope's memories, and no other scope's; for a re-run turn
     * ({@code asOf} set), only those written by the time the original turn was asked for, so the replay recalls what
     * the original could, not what was learnt since. The prompt is only embedded when the scope holds a memory the
     * turn may recall.
     */
    public AssemblyInput.MemorySearch in(String scope, Optional<Instant> asOf) {
        long writtenUntil = until(asOf);
        return (query, k) -> k <= 0 || !holdsAny(scope, writtenUntil) ? List.of()
                : search(scope, Vectors.int8RoundTrip(embed(query)), k, writtenUntil).stream()
                        .map(MemoryIndex.Hit::text).toList();
    }

    /** Whether {@code scope} holds a memory written at or before {@code writtenUntil}: whether a search may hit. */
    public boolean holdsAny(String scope, long writtenUntil) {
        return shelf(scope).holdsAny(writtenUntil);
    }

    /** The {@code k} memories of {@code scope} most similar to {@code unitQuery}, most similar first. */
    public List<MemoryIndex.Hit> search(String scope, float[] unitQuery, int k, long writtenUntil) {
        return shelf(scope).nearest(unitQuery, k, MIN_SIMILARITY, writtenUntil, MemoryIndex.APPROXIMATE_ABOVE,
                MemoryIndex.CANDIDATES, id -> entries.get(scope, id).map(MemoryEntries::vector).orElse(null));
    }

    /**
     * The prompt a lookup searches with, as a turn whose scope is held where it arrives searches ({@link #in}): in 8
     * bits, also when a lookup written before query_int8 carries it as floats.
     */
    static float[] queryOf(MemoryLookup lookup) {
        return lookup.getQueryInt8() != null ? Vectors.fromInt8(lookup.getQueryInt8())
                : Vectors.int8RoundTrip(Vectors.fromBytes(lookup.getQuery()));
    }

    /** {@code text}'s unit vector, in the running model. */
    public float[] embed(String text) {
        return Vectors.unit(model.embedder().embed(List.of(text)).get(0));
    }

    /**
     * Keeps an entry read from cognition.memory, in the running model's vector (embedded again from its text if
     * another model wrote it), and enforces the scope's count: what is over it is forgotten here and returned, to be
     * tombstoned on the topic.
     */
    public List<Forgotten> keep(MemoryEntry entry, MemoryRetention retention, Instant now) {
        String scope = scopeOf(entry);
        float[] vector = model.name().equals(entry.getEmbeddingModel()) ? Vectors.unit(MemoryEntries.vector(entry))
                : embed(entry.getText());
        Shelf shelf = shelf(scope);
        MemoryEntry kept = inModel(entry, vector);
        entries.put(scope, kept);
        // As kept, in 8 bits: the shelf's exact vectors are read back from the store, and must be these.
        shelf.put(entry.getBlockId(), entry.getText(), writtenAt(entry).toEpochMilli(), MemoryEntries.vector(kept));
        List<Forgotten> over = new ArrayList<>();
        for (String id : retention.over(shelf, now)) {
            forget(scope, id);
            over.add(new Forgotten(scope, id));
        }
        shelves.resized(task, scope);
        return over;
    }

    /** Drops entry {@code id} of {@code scope} from the store and its shelf. @return whether it was held */
    public boolean forget(String scope, String id) {
        if (entries.get(scope, id).isEmpty()) {
            return false;
        }
        entries.delete(scope, id);
        Shelf cached = shelves.get(task, scope);
        if (cached != null) {
            cached.remove(id);
            shelves.resized(task, scope);
        }
        return true;
    }

    /**
     * Looks at up to {@code max} entries after {@code after} for those aged past {@code retention}, forgetting them.
     *
     * @return the forgotten, and where to go on from (null: the end of the store was reached)
     */
    public Sweep sweep(MemoryRetention retention, Instant now, String after, int max) {
        List<Entries.Positioned> batch = entries.after(after, max);
        List<Forgotten> forgotten = new ArrayList<>();
        for (Entries.Positioned next : batch) {
            if (retention.tooOld(writtenAt(next.entry()), now)) {
                forget(next.scope(), next.entry().getBlockId());
                forgotten.add(new Forgotten(next.scope(), next.entry().getBlockId()));
            }
        }
        return new Sweep(forgotten, batch.size() < max ? null : batch.get(batch.size() - 1).position());
    }

    /** What one step of the age sweep forgot, and where the next goes on from (null: from the start). */
    public record Sweep(List<Forgotten> forgotten, String next) {
    }

    /** The task's shelf of {@code scope}: held, or loaded from the store now (empty if the scope holds nothing). */
    private Shelf shelf(String scope) {
        Shelf shelf = shelves.get(task, scope);
        if (shelf == null) {
            Shelf loaded = new Shelf(DIMENSION);
            List<MemoryEntry> foreign = new ArrayList<>();
            entries.forEach(scope, entry -> {
                if (model.name().equals(entry.getEmbeddingModel())) {
                    loaded.put(entry.getBlockId(), entry.getText(), writtenAt(entry).toEpochMilli(),
                            MemoryEntries.vector(entry));
                } else {
                    foreign.add(entry);
                }
            });
            // Kept by a run with the other model: embedded again, and stored so, once.
            for (MemoryEntry entry : foreign) {
                MemoryEntry kept = inModel(entry, embed(entry.getText()));
                entries.put(scope, kept);
                loaded.put(entry.getBlockId(), entry.getText(), writtenAt(entry).toEpochMilli(),
                        MemoryEntries.vector(kept));
            }
            shelves.put(task, scope, loaded);
            shelf = loaded;
        }
        return shelf;
    }

    private MemoryEntry inModel(MemoryEntry entry, float[] unitVector) {
        return MemoryEntry.newBuilder(entry).setEmbeddingModel(model.name()).setEmbedding(List.of()).setVector(null)
                .setVectorInt8(Vectors.toInt8(unitVector)).build();
    }

    private static long until(Optional<Instant> asOf) {
        return asOf.map(Instant::toEpochMilli).orElse(Long.MAX_VALUE);
    }

    /**
     * The entry a block on channel.memory becomes: embedded, in the scope its turn ran with (its session's own when
     * the block names none), stamped with where and when it was written.
     *
     * @throws InvalidRecordException the block is empty, or names a scope no request could have: dead-lettered, not
     *                                remembered
     */
    public static MemoryEntry remember(RoutedBlock block, Source source, EmbeddingModel model) {
        return remember(block, source, model.name(), Vectors.unit(model.embedder().embed(List.of(checked(block)
                .getText())).get(0)));
    }

    /** As {@link #remember(RoutedBlock, Source, EmbeddingModel)}, with the block's vector embedded already. */
    public static MemoryEntry remember(RoutedBlock block, Source source, String model, float[] unitVector) {
        checked(block);
        return MemoryEntry.newBuilder()
                .setBlockId(block.getBlockId())
                .setSessionId(block.getSessionId())
                .setMarker(block.getMarker())
                .setText(block.getText())
                .setEmbeddingModel(model)
                .setVectorInt8(Vectors.toInt8(unitVector))
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

    /** @throws InvalidRecordException the block cannot be remembered */
    public static RoutedBlock checked(RoutedBlock block) {
        if (block == null || block.getText().isBlank()) {
            throw new InvalidRecordException("memory block is empty: nothing to remember");
        }
        if (block.getMemoryScope() != null) {
            MemoryScopes.problem(block.getMemoryScope()).ifPresent(problem -> {
                throw new InvalidRecordException("memory block " + block.getBlockId() + ": " + problem);
            });
        }
        return block;
    }

    /**
     * Adds a stored entry to {@code index}, with its stored vector when it is of {@code model}, or else embedded
     * again from its text: how `cognition memory search` searches as the app does.
     */
    public static void index(MemoryIndex index, String key, MemoryEntry entry, EmbeddingModel model) {
        float[] vector = model.name().equals(entry.getEmbeddingModel()) ? MemoryEntries.vector(entry)
                : model.embedder().embed(List.of(entry.getText())).get(0);
        // Normalized again: an entry written by another producer need not be unit length.
        index.put(key, scopeOf(entry), entry.getText(), writtenAt(entry).toEpochMilli(), Vectors.unit(vector));
    }

    /** The scope an entry belongs to; an entry from before scopes, its session's own. */
    public static String scopeOf(MemoryEntry entry) {
        return MemoryScopes.orSession(entry.getScope(), entry.getSessionId());
    }

    /** When an entry was written; an entry from before written_at has only its block's time. */
    public static Instant writtenAt(MemoryEntry entry) {
        return entry.getWrittenAt() != null ? entry.getWrittenAt() : entry.getTimestamp();
    }
}
