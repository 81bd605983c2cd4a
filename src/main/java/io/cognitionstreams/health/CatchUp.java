package io.cognitionstreams.health;

import java.util.Optional;

/**
 * What to say about the records that waited for the app while it was stopped. Each capability processes a task's
 * inputs in timestamp order, so a request that arrives after a start is answered only once the records before it are
 * done: after a backlog that can be minutes of bookkeeping (answers into histories, tool results, memories) that no
 * one sees but the first new request. Fed a reading every few seconds, it says how many there are, then how fast they
 * go and how long is left, then that they are done; below {@link #THRESHOLD} it says nothing.
 */
public final class CatchUp {

    /** Fewer records than this are a few seconds' work at most: not worth a line. */
    public static final long THRESHOLD = 10_000;

    private long firstNanos;
    private long first = -1;
    private long lastNanos;
    private long last;
    private boolean done;

    /** The line for {@code backlog} read at {@code nanos} (a monotonic clock), if there is one to log. */
    public Optional<String> observe(long nanos, Backlog backlog) {
        if (done) {
            return Optional.empty();
        }
        long total = backlog.total();
        if (total < THRESHOLD) {
            done = true;
            return first < 0 ? Optional.empty() : Optional.of(String.format(
                    "caught up on the %,d records before the start in %.0f s", first, seconds(nanos - firstNanos)));
        }
        if (first < 0) {
            first = total;
            firstNanos = nanos;
            lastNanos = nanos;
            last = total;
            return Optional.of(String.format("catching up on %,d records that came before the start; a new request "
                    + "is answered once the records before it are done: %s", total, backlog.describe()));
        }
        double rate = (last - total) / seconds(nanos - lastNanos);
        lastNanos = nanos;
        last = total;
        if (rate <= 0) {
            return Optional.of(String.format("catching up: %,d records left, none done since the last look: %s",
                    total, backlog.describe()));
        }
        return Optional.of(String.format("catching up: %,d records left, %,.0f/s, about %.0f s more", total, rate,
                total / rate));
    }

    /** Whether it has seen the backlog fall below {@link #THRESHOLD}. */
    public boolean done() {
        return done;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
