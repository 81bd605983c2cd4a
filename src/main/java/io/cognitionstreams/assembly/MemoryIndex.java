package io.cognitionstreams.assembly;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Episodic memories of any number of scopes in the heap, exact vectors included: for `cognition memory search`,
 * which builds one from the topic, and for measuring the search ({@code MemoryQualityBench},
 * {@code EpisodicMemoryBench}). Each scope is a {@link Shelf}, so a search reads its scope's memories and nothing
 * else, ranks them as the app's stores do, and gives the same memories as an exact scan. Thread-safe.
 *
 * <p>The app itself keeps no such index: each scope's memories live in the state store of the task that holds the
 * scope, and only the scopes in use are on shelves in the heap ({@link MemoryShelves}).
 */
public final class MemoryIndex {

    /** Distinct memories of a scope above which a search shortlists by binary code first. */
    public static final int APPROXIMATE_ABOVE = 20_000;
    /** How many memories at least the binary codes shortlist for the exact scores. */
    public static final int CANDIDATES = 512;

    /** A memory found for a query: its text and its cosine similarity with the query. */
    public record Hit(String text, float similarity) {
    }

    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Shelf> shelves = new HashMap<>();
    private final Map<String, String> scopeOfId = new HashMap<>();
    private final Map<String, float[]> exact = new HashMap<>();
    private final int approximateAbove;
    private final int candidates;
    private int dimension = -1;

    public MemoryIndex() {
        this(APPROXIMATE_ABOVE, CANDIDATES);
    }

    /** With other bounds than the defaults, to measure what the shortlist costs in recall. */
    public MemoryIndex(int approximateAbove, int candidates) {
        this.approximateAbove = approximateAbove;
        this.candidates = candidates;
    }

    /**
     * Remembers entry {@code id} of {@code scope}, written at {@code writtenAt} (epoch milliseconds), with a
     * unit-length vector, replacing what the id held before (in any scope).
     */
    public void put(String id, String scope, String text, long writtenAt, float[] unitVector) {
        lock.writeLock().lock();
        try {
            if (dimension >= 0 && unitVector.length != dimension) {
                throw new IllegalArgumentException("memory " + id + " has " + unitVector.length
                        + " dimensions, the index " + dimension);
            }
            dimension = unitVector.length;
            String previousScope = scopeOfId.put(id, scope);
            if (previousScope != null && !previousScope.equals(scope)) {
                removeFrom(previousScope, id);
            }
            exact.put(id, unitVector.clone());
            shelves.computeIfAbsent(scope, s -> new Shelf(dimension)).put(id, text, writtenAt, unitVector);
        } finally {
            lock.writeLock().unlock();
        }
    }

    public void remove(String id) {
        lock.writeLock().lock();
        try {
            String scope = scopeOfId.remove(id);
            if (scope != null) {
                removeFrom(scope, id);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The length of every vector held, or -1 before the first. */
    public int dimension() {
        return reading(() -> dimension);
    }

    /** Entries held in every scope. */
    public int size() {
        return reading(scopeOfId::size);
    }

    /** Entries held in {@code scope}, each counted, repeated texts too: what retention bounds. */
    public int entries(String scope) {
        return reading(() -> shelves.containsKey(scope) ? shelves.get(scope).entries() : 0);
    }

    /** The scope entry {@code id} is held in, if it is held. */
    public Optional<String> scopeOf(String id) {
        return reading(() -> Optional.ofNullable(scopeOfId.get(id)));
    }

    /** The scopes that hold at least one entry. */
    public Set<String> scopes() {
        return reading(() -> Set.copyOf(shelves.keySet()));
    }

    /** Whether {@code scope} holds an entry written at or before {@code writtenUntil}: whether a search may hit. */
    public boolean holdsAny(String scope, long writtenUntil) {
        return reading(() -> {
            Shelf shelf = shelves.get(scope);
            return shelf != null && shelf.holdsAny(writtenUntil);
        });
    }

    /**
     * The {@code k} memories of {@code scope} most similar to {@code unitQuery}, with a cosine similarity of at least
     * {@code minSimilarity}, among those written at or before {@code writtenUntil} (a text counts from its first
     * entry); most similar first, ties in text order, so every instance builds the same packet.
     */
    public List<Hit> nearest(String scope, float[] unitQuery, int k, double minSimilarity, long writtenUntil) {
        return reading(() -> {
            Shelf shelf = shelves.get(scope);
            return shelf == null ? List.<Hit>of() : shelf.nearest(unitQuery, k, minSimilarity, writtenUntil,
                    approximateAbove, candidates, exact::get);
        });
    }

    /**
     * The ids of {@code scope} that are over its bound, oldest first: every entry written before
     * {@code writtenBefore}, and beyond that the oldest until at most {@code keep} remain.
     */
    public List<String> overBound(String scope, int keep, long writtenBefore) {
        return reading(() -> {
            Shelf shelf = shelves.get(scope);
            return shelf == null ? List.<String>of() : shelf.overBound(keep, writtenBefore);
        });
    }

    private <T> T reading(Supplier<T> read) {
        lock.readLock().lock();
        try {
            return read.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    private void removeFrom(String scope, String id) {
        Shelf shelf = shelves.get(scope);
        shelf.remove(id);
        exact.remove(id);
        if (shelf.isEmpty()) {
            shelves.remove(scope);
        }
    }
}
