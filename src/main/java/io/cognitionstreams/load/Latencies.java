package io.cognitionstreams.load;

import java.util.Arrays;

/** Latencies of one run in milliseconds, and their percentiles (nearest rank). Not thread-safe. */
public final class Latencies {

    private long[] values = new long[1024];
    private int size;

    public void add(long millis) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = millis;
    }

    public int count() {
        return size;
    }

    public Summary summary() {
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        return new Summary(size, rank(sorted, 50), rank(sorted, 95), rank(sorted, 99),
                size == 0 ? 0 : sorted[size - 1]);
    }

    private static long rank(long[] sorted, int percentile) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, index)];
    }

    public record Summary(int count, long p50, long p95, long p99, long max) {
    }
}
