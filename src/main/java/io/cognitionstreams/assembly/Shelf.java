package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.PriorityQueue;
import java.util.TreeSet;

import io.cognitionstreams.embeddings.Vectors;

/**
 * One memory scope's memories, ready to search. Each distinct text is one slot (an agent that verifies "tests passed" a
 * thousand times has one memory of it, searched once and returned once), held compactly: its vector as 8-bit
 * integers with a scale (a quarter of the floats' bytes) and the sign of each dimension as a binary code. The exact
 * vector stays outside the heap ({@link ExactVectors}: the state store in the app) and is read only for the few
 * memories whose compact score cannot settle the ranking, and never for one the store keeps in 8 bits itself
 * ({@link io.cognitionstreams.embeddings.Vectors#toInt8}), which the shelf holds exactly.
 *
 * <p>Search gives the same memories as an exact scan of the floats. Each compact score is within a known bound of the
 * exact one (the quantization residual's length, by Cauchy-Schwarz), so a memory whose best possible score is below
 * the k-th best worst possible score cannot be among the k best and is dropped; the rest are scored exactly. Up to
 * {@code approximateAbove} slots every slot is scored; past that a popcount over the binary codes first shortlists
 * at least {@code candidates} of them (every slot at the cut-off distance included, so the shortlist depends on the
 * memories alone, not on their order, and every instance builds the same packet).
 *
 * <p>Not thread-safe: a scope's shelf is used by the one task that holds the scope ({@link MemoryIndex} locks).
 */
final class Shelf {

    /** The exact unit vector of a memory, by the id of one of its entries; null when it is not known. */
    @FunctionalInterface
    interface ExactVectors {
        float[] of(String id);
    }

    /** An entry as retention and time travel see it. */
    record Aged(String id, String text, long writtenAt) {
        static final Comparator<Aged> OLDEST_FIRST = Comparator.comparingLong(Aged::writtenAt)
                .thenComparing(Aged::id);
    }

    /** Heap an entry costs beyond its text and id: its record, map and tree nodes. */
    private static final int ENTRY_BYTES = 160;
    /** Slack for the float arithmetic of the compact score and its bound. */
    private static final float ROUNDING = 1e-5f;
    /** A quantization error no longer than this is float rounding: the vector was kept in 8 bits already. */
    private static final float KEPT_IN_8_BITS = 1e-6f;
    private static final Comparator<MemoryIndex.Hit> WORST_FIRST = (a, b) -> a.similarity() != b.similarity()
            ? Float.compare(a.similarity(), b.similarity()) : b.text().compareTo(a.text());

    private static final ThreadLocal<short[]> DISTANCES = ThreadLocal.withInitial(() -> new short[0]);
    private static final ThreadLocal<float[]> SCORES = ThreadLocal.withInitial(() -> new float[0]);

    private final int dimension;
    private final int words;
    private final Map<String, Aged> entries = new HashMap<>();
    private final NavigableSet<Aged> byAge = new TreeSet<>(Aged.OLDEST_FIRST);
    private final Map<String, Integer> slotOfText = new HashMap<>();
    private int[] references = new int[4];
    /** When each text was first written, for searches as of a time. */
    private long[] earliest = new long[4];
    /** No text was first written later than this: a search as of this or later need not look at each. */
    private long latest = Long.MIN_VALUE;
    private String[] texts = new String[4];
    /** An entry of each text, whose exact vector stands for the text's. */
    private String[] representatives = new String[4];
    private byte[] quantized;
    private float[] scales = new float[4];
    /** The length of each vector's quantization error: its compact score is within this of the exact one. */
    private float[] residuals = new float[4];
    /** Each vector's signs, {@code words} longs a memory. */
    private long[] codes;
    private int size;
    private long characters;

    Shelf(int dimension) {
        this.dimension = dimension;
        this.words = (dimension + 63) / 64;
        this.quantized = new byte[4 * dimension];
        this.codes = new long[4 * words];
    }

    int dimension() {
        return dimension;
    }

    /** Entries held, each counted, repeated texts too: what retention bounds. */
    int entries() {
        return entries.size();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    boolean holds(String id) {
        return entries.containsKey(id);
    }

    /** Whether an entry written at or before {@code writtenUntil} is held: whether a search may hit. */
    boolean holdsAny(long writtenUntil) {
        return !byAge.isEmpty() && byAge.first().writtenAt() <= writtenUntil;
    }

    /** About how much heap this shelf takes, for the cache that bounds it. */
    long bytes() {
        return 64L + (long) texts.length * (dimension + 8L * words + 4 + 4 + 4 + 8 + 16 + 48)
                + (long) entries.size() * ENTRY_BYTES + 2 * characters;
    }

    /** Remembers entry {@code id}, replacing what it held before; {@code unitVector} is the text's exact vector. */
    void put(String id, String text, long writtenAt, float[] unitVector) {
        if (unitVector.length != dimension) {
            throw new IllegalArgumentException("memory " + id + " has " + unitVector.length + " dimensions, the "
                    + "scope's " + dimension);
        }
        Aged entry = new Aged(id, text, writtenAt);
        Aged previous = entries.put(id, entry);
        if (entry.equals(previous)) {
            return;
        }
        if (previous != null) {
            byAge.remove(previous);
            release(previous);
        } else {
            characters += id.length();
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
        representatives[size] = id;
        references[size] = 1;
        earliest[size] = writtenAt;
        latest = Math.max(latest, writtenAt);
        quantize(unitVector, size);
        sign(unitVector, codes, size * words);
        slotOfText.put(text, size);
        characters += text.length();
        size++;
    }

    /** @return whether the shelf held {@code id} */
    boolean remove(String id) {
        Aged entry = entries.remove(id);
        if (entry == null) {
            return false;
        }
        characters -= id.length();
        byAge.remove(entry);
        release(entry);
        return true;
    }

    /**
     * The ids that are over the bound, oldest first: every entry written before {@code writtenBefore}, and beyond
     * that the oldest until at most {@code keep} remain.
     */
    List<String> overBound(int keep, long writtenBefore) {
        List<String> over = new ArrayList<>();
        int remaining = entries.size();
        // Oldest first: once an entry is young enough and within the count, every later one is too.
        for (Aged entry : byAge) {
            if (remaining <= keep && entry.writtenAt() >= writtenBefore) {
                break;
            }
            over.add(entry.id());
            remaining--;
        }
        return over;
    }

    /**
     * The {@code k} memories most similar to {@code unitQuery} with a cosine similarity of at least
     * {@code minSimilarity}, among those written at or before {@code writtenUntil} (a text counts from its first
     * entry); most similar first, ties in text order.
     */
    List<MemoryIndex.Hit> nearest(float[] unitQuery, int k, double minSimilarity, long writtenUntil,
                                  int approximateAbove, int candidates, ExactVectors exact) {
        if (k <= 0 || size == 0 || unitQuery.length != dimension) {
            return List.of();
        }
        // At least k, so a caller's larger k (the CLI's --top) still gets k memories.
        int[] shortlist = size > approximateAbove ? closestCodes(unitQuery, writtenUntil, Math.max(k, candidates))
                : null;
        int count = shortlist == null ? size : shortlist.length;
        float queryLength = length(unitQuery);
        float[] upper = upperBounds(count);
        // The k-th best score some memory is sure to reach: no memory whose best falls below it can be among the k.
        PriorityQueue<Float> surest = new PriorityQueue<>(Math.min(k, 64) + 1);
        for (int i = 0; i < count; i++) {
            int slot = shortlist == null ? i : shortlist[i];
            if (earliest[slot] > writtenUntil) {
                upper[i] = Float.NEGATIVE_INFINITY;
                continue;
            }
            float approximate = scales[slot] * dotQuantized(unitQuery, slot * dimension);
            float bound = residuals[slot] * queryLength + ROUNDING;
            upper[i] = approximate + bound;
            if (upper[i] < minSimilarity) {
                continue;
            }
            float lower = approximate - bound;
            if (surest.size() < k) {
                surest.add(lower);
            } else if (lower > surest.peek()) {
                surest.poll();
                surest.add(lower);
            }
        }
        float floor = surest.size() < k ? Float.NEGATIVE_INFINITY : surest.peek();
        PriorityQueue<MemoryIndex.Hit> best = new PriorityQueue<>(Math.min(k, 64) + 1, WORST_FIRST);
        for (int i = 0; i < count; i++) {
            if (upper[i] < floor || upper[i] < minSimilarity) {
                continue;
            }
            int slot = shortlist == null ? i : shortlist[i];
            // A vector kept in 8 bits is here as the store holds it: its compact score is its exact one.
            float[] vector = residuals[slot] <= KEPT_IN_8_BITS ? null : exact.of(representatives[slot]);
            float score = vector != null && vector.length == dimension ? dot(unitQuery, vector)
                    : scales[slot] * dotQuantized(unitQuery, slot * dimension);
            if (score < minSimilarity) {
                continue;
            }
            MemoryIndex.Hit hit = new MemoryIndex.Hit(texts[slot], score);
            if (best.size() < k) {
                best.add(hit);
            } else if (WORST_FIRST.compare(hit, best.peek()) > 0) {
                best.poll();
                best.add(hit);
            }
        }
        List<MemoryIndex.Hit> ranked = new ArrayList<>(best.size());
        while (!best.isEmpty()) {
            ranked.add(best.poll());
        }
        Collections.reverse(ranked);
        return ranked;
    }

    private static float[] upperBounds(int count) {
        float[] buffer = SCORES.get();
        if (buffer.length < count) {
            buffer = new float[Math.max(count, buffer.length * 2)];
            SCORES.set(buffer);
        }
        return buffer;
    }

    private static float length(float[] vector) {
        double squares = 0;
        for (float value : vector) {
            squares += (double) value * value;
        }
        return (float) Math.sqrt(squares);
    }

    /**
     * The slots written by {@code writtenUntil} whose codes are nearest the query's in Hamming distance: at least
     * {@code wanted} (fewer only if fewer are held), and all of those at the farthest distance taken.
     */
    private int[] closestCodes(float[] query, long writtenUntil, int wanted) {
        long[] code = new long[words];
        sign(query, code, 0);
        // One pass of popcounts, kept, so the selection below reads distances and computes none. The buffer is the
        // searching thread's own.
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
     * The common case, a live turn over 384-dim vectors (both of our models): every memory is old enough, and the
     * query's six words sit in locals, which the JIT cannot do by itself as the arrays might alias. With the time
     * checks gone too, this halved the search at 100,000 memories (docs/benchmarks.md).
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

    /** The vector in 8 bits ({@link Vectors#quantize}), and the length of what that loses. */
    private void quantize(float[] vector, int slot) {
        int at = slot * dimension;
        float scale = Vectors.quantize(vector, quantized, at);
        double lost = 0;
        for (int d = 0; d < dimension; d++) {
            double error = vector[d] - (double) scale * quantized[at + d];
            lost += error * error;
        }
        scales[slot] = scale;
        residuals[slot] = (float) Math.sqrt(lost);
    }

    /** Eight independent sums the CPU can overlap: a fifth faster than four on this project's bench machine. */
    static float dot(float[] query, float[] vector) {
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
            s0 += query[i] * vector[i];
            s1 += query[i + 1] * vector[i + 1];
            s2 += query[i + 2] * vector[i + 2];
            s3 += query[i + 3] * vector[i + 3];
            s4 += query[i + 4] * vector[i + 4];
            s5 += query[i + 5] * vector[i + 5];
            s6 += query[i + 6] * vector[i + 6];
            s7 += query[i + 7] * vector[i + 7];
        }
        for (; i < query.length; i++) {
            s0 += query[i] * vector[i];
        }
        return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    }

    private float dotQuantized(float[] query, int offset) {
        byte[] levels = quantized;
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
            s0 += query[i] * levels[at];
            s1 += query[i + 1] * levels[at + 1];
            s2 += query[i + 2] * levels[at + 2];
            s3 += query[i + 3] * levels[at + 3];
            s4 += query[i + 4] * levels[at + 4];
            s5 += query[i + 5] * levels[at + 5];
            s6 += query[i + 6] * levels[at + 6];
            s7 += query[i + 7] * levels[at + 7];
        }
        for (; i < query.length; i++) {
            s0 += query[i] * levels[offset + i];
        }
        return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    }

    private void release(Aged entry) {
        int slot = slotOfText.get(entry.text());
        if (--references[slot] > 0) {
            if (earliest[slot] == entry.writtenAt() || entry.id().equals(representatives[slot])) {
                // The text's first entry, or the one standing for it, went: its next one by age takes its place.
                Aged next = byAge.stream().filter(other -> other.text().equals(entry.text())).findFirst()
                        .orElseThrow();
                earliest[slot] = next.writtenAt();
                representatives[slot] = next.id();
                latest = Math.max(latest, earliest[slot]);
            }
            return;
        }
        // The last slot moves into the freed one, keeping the arrays dense.
        int last = size - 1;
        slotOfText.remove(entry.text());
        characters -= entry.text().length();
        if (slot != last) {
            texts[slot] = texts[last];
            representatives[slot] = representatives[last];
            references[slot] = references[last];
            earliest[slot] = earliest[last];
            scales[slot] = scales[last];
            residuals[slot] = residuals[last];
            System.arraycopy(quantized, last * dimension, quantized, slot * dimension, dimension);
            System.arraycopy(codes, last * words, codes, slot * words, words);
            slotOfText.put(texts[slot], slot);
        }
        texts[last] = null;
        representatives[last] = null;
        size--;
    }

    private void grow() {
        int capacity = texts.length * 2;
        texts = Arrays.copyOf(texts, capacity);
        representatives = Arrays.copyOf(representatives, capacity);
        references = Arrays.copyOf(references, capacity);
        earliest = Arrays.copyOf(earliest, capacity);
        scales = Arrays.copyOf(scales, capacity);
        residuals = Arrays.copyOf(residuals, capacity);
        quantized = Arrays.copyOf(quantized, capacity * dimension);
        codes = Arrays.copyOf(codes, capacity * words);
    }
}
