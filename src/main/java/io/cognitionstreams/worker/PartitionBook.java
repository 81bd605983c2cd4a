package io.cognitionstreams.worker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One partition's offsets in a {@link ParallelLoop}: which fetched records are still to do, which are done and wait
 * for their outputs to be committed, and what the next commit may say. Records finish out of order (one session's
 * slow call, another's fast one), so a commit writes the first offset not done ({@code base}) and, in its metadata
 * ({@link OffsetMetadata}), which records above it are done too; their outputs go into the same transaction. A
 * record is done for good exactly when the last committed offset says so: its outputs are written, and whoever reads
 * the partition next skips it.
 *
 * <p>The metadata has a size limit (the brokers' {@code offset.metadata.max.bytes}). When the records not done
 * above the base are too scattered to list within it, the commit speaks for fewer offsets above the base and holds
 * back the outputs of the done records beyond; the book is then {@link #cramped()}, and the loop stops fetching the
 * partition until the stragglers finish.
 *
 * @param <T> what a done record leaves to commit (its outputs)
 */
final class PartitionBook<T> {

    /** Fetched records not committed yet: to do (null) or done (what they leave). */
    private final TreeMap<Long, Optional<T>> open = new TreeMap<>();
    /** The last commit read at assignment, for the records not fetched since. */
    private final long restoredBase;
    private final OffsetMetadata.Above restored;
    private long committedBase;
    private long committedEnd;
    private long fetchedEnd;
    private boolean cramped;

    private PartitionBook(long base, OffsetMetadata.Above above) {
        this.restoredBase = base;
        this.restored = above;
        this.committedBase = base;
        this.committedEnd = base + above.span();
        this.fetchedEnd = base;
    }

    /** A partition never committed: everything from wherever the consumer starts is to do. */
    static <T> PartitionBook<T> fresh() {
        return new PartitionBook<>(0, OffsetMetadata.Above.NOTHING);
    }

    /** A partition as its last commit left it. */
    static <T> PartitionBook<T> restored(long base, OffsetMetadata.Above above) {
        return new PartitionBook<>(base, above);
    }

    /**
     * A record the consumer returned. False when it is done already (the last commit says so): skip it, its outputs
     * are written.
     */
    boolean fetched(long offset) {
        if (offset < committedBase) {
            return false;
        }
        fetchedEnd = Math.max(fetchedEnd, offset + 1);
        if (offset < committedEnd && restored.done(offset - restoredBase)) {
            return false;
        }
        open.put(offset, Optional.empty());
        return true;
    }

    /** A fetched record finished, leaving {@code outputs} to commit. */
    void done(long offset, T outputs) {
        if (!open.containsKey(offset)) {
            throw new IllegalStateException("offset " + offset + " was not fetched or is committed already");
        }
        open.put(offset, Optional.of(outputs));
    }

    /** Records fetched and not committed, done or not. */
    int held() {
        return open.size();
    }

    /** Whether the last {@link #plan} had to hold back done records because the metadata would not fit. */
    boolean cramped() {
        return cramped;
    }

    /**
     * What to commit now: the new base and metadata, and the done records whose outputs go with them; empty when
     * nothing would change.
     *
     * @param budget the most characters the metadata may have
     */
    Optional<Commit<T>> plan(int budget) {
        long end = Math.max(fetchedEnd, committedEnd);
        List<long[]> notDone = notDone(end);
        long base = notDone.isEmpty() ? end : notDone.get(0)[0];
        long cut = end;
        String metadata = metadata(base, cut, notDone);
        for (int run = notDone.size() - 1; metadata.length() > budget && cut > committedEnd && run >= 0; run--) {
            // Speak for less: up to the start of a run still listed, holding back what is done beyond it; never
            // for less than the last commit, whose done records are written.
            cut = Math.max(notDone.get(run)[0], committedEnd);
            metadata = metadata(base, cut, notDone);
        }
        if (metadata.length() > budget) {
            // Even the last commit's reach does not fit until more of its stragglers finish: commit nothing yet.
            cramped = true;
            return Optional.empty();
        }
        cramped = cut < end;
        List<Long> offsets = new ArrayList<>();
        List<T> outputs = new ArrayList<>();
        for (Map.Entry<Long, Optional<T>> entry : open.headMap(cut).entrySet()) {
            if (entry.getValue().isPresent()) {
                offsets.add(entry.getKey());
                outputs.add(entry.getValue().get());
            }
        }
        if (base == committedBase && cut == committedEnd && offsets.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Commit<>(base, cut, metadata, offsets, outputs));
    }

    /** The transaction with {@code commit} committed. */
    void committed(Commit<T> commit) {
        commit.offsets().forEach(open::remove);
        open.headMap(commit.base()).clear();
        committedBase = commit.base();
        committedEnd = commit.end();
    }

    /**
     * The runs [start, end) of offsets below {@code end} not done: fetched records to do, and the records the last
     * commit at assignment left not done and not fetched since.
     */
    private List<long[]> notDone(long end) {
        List<long[]> runs = new ArrayList<>();
        for (Map.Entry<Long, Optional<T>> entry : open.entrySet()) {
            if (entry.getValue().isEmpty()) {
                add(runs, entry.getKey(), entry.getKey() + 1);
            }
        }
        // The restored base itself is never done; the restored runs are relative to it. Only the part of them not
        // fetched since and not committed past still speaks.
        long[] restoredRuns = restored.runs();
        long from = Math.max(fetchedEnd, committedBase);
        long to = Math.min(committedEnd, end);
        List<long[]> unfetched = new ArrayList<>();
        if (restored.span() > 0) {
            clip(unfetched, restoredBase, restoredBase + 1, from, to);
        }
        for (int i = 0; i < restoredRuns.length; i += 2) {
            clip(unfetched, restoredBase + restoredRuns[i], restoredBase + restoredRuns[i] + restoredRuns[i + 1],
                    from, to);
        }
        List<long[]> merged = new ArrayList<>();
        int a = 0;
        int b = 0;
        while (a < runs.size() || b < unfetched.size()) {
            long[] next = b >= unfetched.size() || (a < runs.size() && runs.get(a)[0] < unfetched.get(b)[0])
                    ? runs.get(a++) : unfetched.get(b++);
            add(merged, next[0], next[1]);
        }
        return merged;
    }

    private static void clip(List<long[]> runs, long start, long end, long from, long to) {
        long clippedStart = Math.max(start, from);
        long clippedEnd = Math.min(end, to);
        if (clippedStart < clippedEnd) {
            runs.add(new long[] {clippedStart, clippedEnd});
        }
    }

    private static void add(List<long[]> runs, long start, long end) {
        long[] last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
        if (last != null && last[1] >= start) {
            last[1] = Math.max(last[1], end);
        } else {
            runs.add(new long[] {start, end});
        }
    }

    /** The metadata of a commit at {@code base} speaking up to {@code cut}. */
    private static String metadata(long base, long cut, List<long[]> notDone) {
        if (cut <= base) {
            return "";
        }
        long[] runs = new long[2 * notDone.size()];
        int n = 0;
        for (long[] run : notDone) {
            // Relative to the base, which is never done and so never listed, and within the cut.
            long start = Math.max(run[0] - base, 1);
            long end = Math.min(run[1], cut) - base;
            if (end > start) {
                runs[n++] = start;
                runs[n++] = end - start;
            }
        }
        return OffsetMetadata.encode(new OffsetMetadata.Above(cut - base, Arrays.copyOf(runs, n)));
    }

    /**
     * One partition's part of a transaction.
     *
     * @param base     the offset to commit: the first record not done
     * @param end      how far above it the metadata speaks
     * @param offsets  the done records whose outputs go into the transaction, ascending
     * @param outputs  what each of them left, in the same order
     */
    record Commit<T>(long base, long end, String metadata, List<Long> offsets, List<T> outputs) {
    }
}
