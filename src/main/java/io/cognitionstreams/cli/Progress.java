package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A progress line for a person watching a long `produce`: lines read, records sent and acknowledged, and the
 * acknowledgement rate since the previous line; every second, and once more at the end.
 */
final class Progress implements AutoCloseable {

    private final PrintWriter err;
    private final LongSupplier read;
    private final AsyncSender sender;
    private final ScheduledExecutorService timer;
    private long lastAcknowledged;
    private long lastNanos = System.nanoTime();

    /** @param shown whether to print at all: on a terminal, or when asked for */
    Progress(boolean shown, PrintWriter err, LongSupplier read, AsyncSender sender) {
        this.err = err;
        this.read = read;
        this.sender = sender;
        this.timer = shown ? Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "produce-progress");
            thread.setDaemon(true);
            return thread;
        }) : null;
        if (timer != null) {
            timer.scheduleAtFixedRate(this::print, 1, 1, TimeUnit.SECONDS);
        }
    }

    private synchronized void print() {
        long now = System.nanoTime();
        long acknowledged = sender.acknowledged();
        double seconds = Math.max(now - lastNanos, 1) / 1e9;
        err.printf("progress: %,d lines read, %,d records sent, %,d acknowledged, %,.0f records/s%n",
                read.getAsLong(), sender.sent(), acknowledged, (acknowledged - lastAcknowledged) / seconds);
        err.flush();
        lastAcknowledged = acknowledged;
        lastNanos = now;
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
            print();
        }
    }
}
