package io.cognitionstreams.telemetry;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;

/**
 * A warning that may recur once per record, logged at most once per interval with how often it happened since:
 * a topic full of bad records must not turn into as many log lines. The first occurrence is logged at once, with its
 * details; the total is always there for a metric to read.
 */
public final class IntervalLog {

    private final Logger log;
    private final String what;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong unlogged = new AtomicLong();
    private final AtomicLong nextLogAt;

    public IntervalLog(Logger log, String what, Duration interval) {
        this(log, what, interval, System::nanoTime);
    }

    IntervalLog(Logger log, String what, Duration interval, LongSupplier clock) {
        this.log = log;
        this.what = what;
        this.intervalNanos = interval.toNanos();
        this.clock = clock;
        this.nextLogAt = new AtomicLong(clock.getAsLong());
    }

    /** Counts one occurrence; logs it (with {@code detail}) when the interval since the last log line has passed. */
    public void warn(String detail) {
        total.incrementAndGet();
        long pending = unlogged.incrementAndGet();
        long now = clock.getAsLong();
        long due = nextLogAt.get();
        if (now - due >= 0 && nextLogAt.compareAndSet(due, now + intervalNanos)) {
            unlogged.addAndGet(-pending);
            if (pending == 1) {
                log.warn("{}: {}", what, detail);
            } else {
                log.warn("{}: {} times since the last report ({} in all), the latest: {}", what, pending,
                        total.get(), detail);
            }
        }
    }

    /** Occurrences since start. */
    public long total() {
        return total.get();
    }
}
