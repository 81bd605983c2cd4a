package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The episodic memory's vectors, decoded once and kept in flat arrays beside the global store, so a search is a
 * scan of contiguous floats instead of decoding every stored record (which cost 57 % of the pipeline's time with
 * a few thousand memories). Written by the global thread as the store changes, read by any stream thread.
 *
 * <p>Each scope has a shelf of its own, so a search reads its scope's vectors and nothing else: another scope's
 * memories are not filtered out of the results, they are never scored. Within a scope, entries with the same text
 * share one vector: an agent that verifies "tests passed" a thousand times has one memory of it, searched once and
 * returned once, not a thousand copies crowding out the other results. Each entry keeps when it was written, so a
 * replayed turn can search its scope as it was then, and the oldest entries are the first retention drops.
 *
 * <p>Search is exact up to {@link #APPROXIMATE_ABOVE} distinct memories in a scope (0.15 µs each). Past that a scan
 * of every float would cost milliseconds, so each memory also keeps a binary code (the sign of each dimension) and a
 * search first takes the memories whose codes differ least from the query's (a popcount over six longs each), at
 * least {@link #CANDIDATES}, then scores only those exactly. Every memory at the cut-off distance is kept, so the
 * shortlist depends on the memories alone, not on their order, and every instance still builds the same packet.
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
        return reading(() -> shelves.containsKey(scope) ? shelves.get(scope).entries.size() : 0);
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
            return shelf != null && shelf.byAge.first().writtenAt() <= writtenUntil;
        });
    }

    /**
     * The {@code k} memories of {@code scope} most similar to {@code unitQuery}, with a cosine similarity of at least
     * {@code minSimilarity}, among those written at or before {@code writtenUntil} (a text counts from its first
     * entry); most similar first, ties in text order, so every instance builds the same packet.
     */
    public List<Hit> nearest(String scope, float[] unitQuery, int k, double minSimilarity, long writtenUntil) {
        if (k <= 0) {
            return List.of();
        }
        // The worst of the best k at the head, so each candidate is compared with it once. Sized for a packet's
        // few; it grows for a larger k, so a caller's k (the CLI's --top) never sizes an array by itself.
        PriorityQueue<Hit> best = new PriorityQueue<>(Math.min(k, 64) + 1, (a, b) -> a.similarity() != b.similarity()
                ? Float.compare(a.similarity(), b.similarity()) : b.text().compareTo(a.text()));
        lock.readLock().lock();
        try {
            Shelf shelf = shelves.get(scope);
            if (shelf == null || unitQuery.length != dimension) {
                return List.of();
            }
            // At least k, so a caller's larger k (the CLI's --top) still gets k memories.
            int[] shortlist = shelf.size > approximateAbove
                    ? shelf.closestCodes(unitQuery, writtenUntil, Math.max(k, candidates)) : null;
            int count = shortlist == null ? shelf.size : shortlist.length;
            for (int i = 0; i < count; i++) {
                int slot = shortlist == null ? i : shortlist[i];
                if (shelf.earliest[slot] > writtenUntil) {
                    continue;
                }
                float score = dot(unitQuery, shelf.vectors, slot * dimension);
                if (score < minSimilarity || best.size() == k && score < best.peek().similarity()) {
                    continue;
                }
                Hit hit = new Hit(shelf.texts[slot], score);
                if (best.size() < k) {
                    best.add(hit);
                } else if (best.comparator().compare(hit, best.peek()) > 0) {
                    best.poll();
                    best.add(hit);
                }
            }
        } finally {
            lock.readLock().unlock();
        }
        List<Hit> ranked = new ArrayList<>(best.size());
        while (!best.isEmpty()) {
            ranked.add(best.poll());
        }
        Collections.reverse(ranked);
        return ranked;
    }

    /**
     * The ids of {@code scope} that are over its bound, oldest first: every entry written before
     * {@code writtenBefore}, and beyond that the oldest until at most {@code keep} remain.
     */
    public List<String> overBound(String scope, int keep, long writtenBefore) {
        return reading(() -> {
            Shelf shelf = shelves.get(scope);
            if (shelf == null) {
                return List.of();
            }
            List<String> over = new ArrayList<>();
            int remaining = shelf.entries.size();
            // Oldest first: once an entry is young enough and within the count, every later one is too.
            for (Aged entry : shelf.byAge) {
                if (remaining <= keep && entry.writtenAt() >= writtenBefore) {
                    break;
                }
                over.add(entry.id());
                remaining--;
            }
            return over;
        });
    }

    // Eight independent sums the CPU can overlap: a fifth faster than four on this project's bench machine.
    private static float dot(float[] query, float[] vectors, int offset) {
        float s0 = 0;
        float s1 = 0;
        float s2 = 0;
        float s3 = 0;
        float s4 = 0;
        float s5 = 0;
        float s6 = 0;
        float s7 = 0;
        int i = 0;
        for (; i + 7 < query.length; i += 8) {
            int at = offset + i;
            s0 += query[i] * vectors[at];
            s1 += query[i + 1] * vectors[at + 1];
            s2 += query[i + 2] * vectors[at + 2];
            s3 += query[i + 3] * vectors[at + 3];
            s4 += query[i + 4] * vectors[at + 4];
            s5 += query[i + 5] * vectors[at + 5];
            s6 += query[i + 6] * vectors[at + 6];
            s7 += query[i + 7] * vectors[at + 7];
        }
        for (; i < query.length; i++) {
            s0 += query[i] * vectors[offset + i];
        }
        return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
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
        if (shelf.entries.isEmpty()) {
            shelves.remove(scope);
        }
    }

    /** An entry as retention and time travel see it. */
    private record Aged(String id, String text, long writtenAt) {
        static final Comparator<Aged> OLDEST_FIRST = Comparator.comparingLong(Aged::writtenAt)
                .thenComparing(Aged::id);
    }

    private static final ThreadLocal<short[]> DISTANCES = ThreadLocal.withInitial(() -> new short[0]);

    /** One scope's memories: a dense array of distinct texts and their vectors, and its entries by age. */
    private static final class Shelf {
        private final int dimension;
        private final Map<String, Aged> entries = new HashMap<>();
        private final NavigableSet<Aged> byAge = new TreeSet<>(Aged.OLDEST_FIRST);
        private final Map<String, Integer> slotOfText = new HashMap<>();
        private int[] references = new int[16];
        /** When each text was first written, for searches as of a time. */
        private long[] earliest = new long[16];
        /** No text was first written later than this: a search as of this or later need not look at each. */
        private long latest = Long.MIN_VALUE;
        private String[] texts = new String[16];
        private float[] vectors;
        /** Each vector's signs, {@code words} longs a memory. */
        private long[] codes;
        private final int words;
        private int size;

        Shelf(int dimension) {
            this.dimension = dimension;
            this.words = (dimension + 63) / 64;
            this.vectors = new float[16 * dimension];
            this.codes = new long[16 * words];
        }

        /**
         * The slots written by {@code writtenUntil} whose codes are nearest the query's in Hamming distance: at least
         * {@code wanted} (fewer only if fewer are held), and all of those at the farthest distance taken.
         */
        int[] closestCodes(float[] query, long writtenUntil, int wanted) {
            long[] code = new long[words];
            sign(query, code, 0);
            // One pass of popcounts, kept, so the selection below reads distances and computes none. The buffer
            // is the searching thread's own: searches run side by side under the read lock.
            short[] distances = DISTANCES.get();
            if (distances.length < size) {
                distances = new short[Math.max(size, distances.length * 2)];
                DISTANCES.set(distances);
            }
            int[] histogram = new int[dimension + 1];
            if (words == 6 && latest <= writtenUntil) {
                sixWordDistances(code, distances, histogram);
            } else {
                for (int slot = 0; slot < size; slot++) {
                    if (earliest[slot] > writtenUntil) {
                        distances[slot] = Short.MAX_VALUE;
                        continue;
                    }
                    int distance = hamming(code, slot);
                    distances[slot] = (short) distance;
                    histogram[distance]++;
                }
            }
            int cutoff = 0;
            int count = histogram[0];
            while (count < wanted && cutoff < dimension) {
                count += histogram[++cutoff];
            }
            int[] shortlist = new int[count];
            int next = 0;
            for (int slot = 0; slot < size && next < count; slot++) {
                if (distances[slot] <= cutoff) {
                    shortlist[next++] = slot;
                }
            }
            return shortlist;
        }

        /**
         * The common case, a live turn over 384-dim vectors (both of our models): every memory is old enough, and
         * the query's six words sit in locals, which the JIT cannot do by itself as the arrays might alias. With
         * the time checks gone too, this halved the search at 100,000 memories (docs/benchmarks.md).
         */
        private void sixWordDistances(long[] code, short[] distances, int[] histogram) {
            long c0 = code[0];
            long c1 = code[1];
            long c2 = code[2];
            long c3 = code[3];
            long c4 = code[4];
            long c5 = code[5];
            long[] all = codes;
            for (int slot = 0, at = 0; slot < size; slot++, at += 6) {
                int distance = Long.bitCount(c0 ^ all[at]) + Long.bitCount(c1 ^ all[at + 1])
                        + Long.bitCount(c2 ^ all[at + 2]) + Long.bitCount(c3 ^ all[at + 3])
                        + Long.bitCount(c4 ^ all[at + 4]) + Long.bitCount(c5 ^ all[at + 5]);
                distances[slot] = (short) distance;
                histogram[distance]++;
            }
        }

        private int hamming(long[] code, int slot) {
            int distance = 0;
            int at = slot * words;
            for (int w = 0; w < words; w++) {
                distance += Long.bitCount(code[w] ^ codes[at + w]);
            }
            return distance;
        }

        private void sign(float[] vector, long[] into, int offset) {
            for (int w = 0; w < words; w++) {
                into[offset + w] = 0;
            }
            for (int d = 0; d < vector.length; d++) {
                if (vector[d] > 0) {
                    into[offset + d / 64] |= 1L << (d % 64);
                }
            }
        }

        void put(String id, String text, long writtenAt, float[] unitVector) {
            Aged entry = new Aged(id, text, writtenAt);
            Aged previous = entries.put(id, entry);
            if (entry.equals(previous)) {
                return;
            }
            if (previous != null) {
                byAge.remove(previous);
                release(previous);
            }
            byAge.add(entry);
            Integer slot = slotOfText.get(text);
            if (slot != null) {
                references[slot]++;
                earliest[slot] = Math.min(earliest[slot], writtenAt);
                return;
            }
            if (size == texts.length) {
                grow();
            }
            texts[size] = text;
            references[size] = 1;
            earliest[size] = writtenAt;
            latest = Math.max(latest, writtenAt);
            System.arraycopy(unitVector, 0, vectors, size * dimension, dimension);
            sign(unitVector, codes, size * words);
            slotOfText.put(text, size);
            size++;
        }

        void remove(String id) {
            Aged entry = entries.remove(id);
            if (entry != null) {
                byAge.remove(entry);
                release(entry);
            }
        }

        private void release(Aged entry) {
            int slot = slotOfText.get(entry.text());
            if (--references[slot] > 0) {
                if (earliest[slot] == entry.writtenAt()) {
                    // The text's first entry went: it now counts from its next one, the first of its text by age.
                    earliest[slot] = byAge.stream().filter(other -> other.text().equals(entry.text())).findFirst()
                            .orElseThrow().writtenAt();
                    latest = Math.max(latest, earliest[slot]);
                }
                return;
            }
            // The last slot moves into the freed one, keeping the array dense.
            int last = size - 1;
            slotOfText.remove(entry.text());
            if (slot != last) {
                texts[slot] = texts[last];
                references[slot] = references[last];
                earliest[slot] = earliest[last];
                System.arraycopy(vectors, last * dimension, vectors, slot * dimension, dimension);
                System.arraycopy(codes, last * words, codes, slot * words, words);
                slotOfText.put(texts[slot], slot);
            }
            texts[last] = null;
            size--;
        }

        private void grow() {
            int capacity = texts.length * 2;
            texts = Arrays.copyOf(texts, capacity);
            references = Arrays.copyOf(references, capacity);
            earliest = Arrays.copyOf(earliest, capacity);
            vectors = Arrays.copyOf(vectors, capacity * dimension);
            codes = Arrays.copyOf(codes, capacity * words);
        }
    }
}
