package io.cognitionstreams.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a committed offset's metadata says about the records above it: which of them are done already. A partition's
 * commit says "everything before {@code base} is done, and so is everything in [{@code base}, {@code base + span})
 * except these offsets", because records finish out of order across keys and their outputs are committed as they
 * finish. A new owner of the partition (after a crash or a rebalance) reads from {@code base} and skips what is done,
 * so no record's outputs are written twice.
 *
 * <p>The text lists the offsets that are <em>not</em> done, as runs: they are the few records still buffered or in
 * flight, and the offsets no record occupies (transaction markers, aborted records) count as done, so they cost
 * nothing. {@code base} itself is never done. Format: {@code p1:<span>} then {@code ,<gap>.<length>} per run of
 * not-done offsets after {@code base}, numbers in base 36, each gap counted from the end of the previous run (from
 * {@code base + 1} for the first). Example: base 100, span 50, not done 100, 103, 104, 120: {@code p1:1e,2.2,f.1}.
 */
final class OffsetMetadata {

    static final String VERSION = "p1:";

    private OffsetMetadata() {
    }

    /**
     * @param span  how far above {@code base} the commit speaks for; 0 when it speaks for nothing above the base
     * @param runs  the runs of offsets in ({@code base}, {@code base + span}) that are not done, relative to base,
     *              ascending and apart: {@code [start, length, start, length, ...]}
     */
    record Above(long span, long[] runs) {

        static final Above NOTHING = new Above(0, new long[0]);

        /** @param notDone offsets not done, relative to base, ascending, each in 1..span-1 */
        static Above of(long span, long[] notDone) {
            List<Long> runs = new ArrayList<>();
            int i = 0;
            while (i < notDone.length) {
                int runEnd = i;
                while (runEnd + 1 < notDone.length && notDone[runEnd + 1] == notDone[runEnd] + 1) {
                    runEnd++;
                }
                runs.add(notDone[i]);
                runs.add(runEnd - i + 1L);
                i = runEnd + 1;
            }
            return new Above(span, runs.stream().mapToLong(Long::longValue).toArray());
        }

        /** Whether the record at {@code base + relative} is done by this commit's word. */
        boolean done(long relative) {
            if (relative <= 0 || relative >= span) {
                return false;
            }
            int low = 0;
            int high = runs.length / 2 - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                long start = runs[2 * mid];
                if (relative < start) {
                    high = mid - 1;
                } else if (relative >= start + runs[2 * mid + 1]) {
                    low = mid + 1;
                } else {
                    return false;
                }
            }
            return true;
        }
    }

    /** The metadata text; the empty string when nothing above the base is done. */
    static String encode(Above above) {
        if (above.span() == 0) {
            return "";
        }
        StringBuilder text = new StringBuilder(VERSION).append(Long.toString(above.span(), 36));
        long[] runs = above.runs();
        long next = 1;
        for (int i = 0; i < runs.length; i += 2) {
            text.append(',').append(Long.toString(runs[i] - next, 36)).append('.').append(Long.toString(runs[i + 1],
                    36));
            next = runs[i] + runs[i + 1];
        }
        return text.toString();
    }

    /**
     * The commit's word on the records above its base. Empty metadata says nothing is done above it; text in another
     * form (written by another tool) gives nothing, so those records are processed again rather than skipped.
     */
    static Optional<Above> decode(String metadata) {
        if (metadata == null || metadata.isEmpty()) {
            return Optional.of(Above.NOTHING);
        }
        if (!metadata.startsWith(VERSION)) {
            return Optional.empty();
        }
        String[] parts = metadata.substring(VERSION.length()).split(",", -1);
        try {
            long span = positive(parts[0]);
            long[] runs = new long[2 * (parts.length - 1)];
            long next = 1;
            for (int i = 1; i < parts.length; i++) {
                int dot = parts[i].indexOf('.');
                if (dot < 0) {
                    return Optional.empty();
                }
                long start = Math.addExact(next, natural(parts[i].substring(0, dot)));
                long length = positive(parts[i].substring(dot + 1));
                long end = Math.addExact(start, length);
                if (end > span) {
                    return Optional.empty();
                }
                runs[2 * (i - 1)] = start;
                runs[2 * (i - 1) + 1] = length;
                next = end;
            }
            return Optional.of(new Above(span, runs));
        } catch (NumberFormatException | ArithmeticException e) {
            return Optional.empty();
        }
    }

    private static long natural(String digits) {
        if (digits.isEmpty() || digits.length() > 12 || !digits.chars().allMatch(c -> Character.digit(c, 36) >= 0)
                || digits.startsWith("-") || digits.startsWith("+")) {
            throw new NumberFormatException(digits);
        }
        return Long.parseLong(digits, 36);
    }

    private static long positive(String digits) {
        long value = natural(digits);
        if (value <= 0) {
            throw new NumberFormatException(digits);
        }
        return value;
    }
}
