package io.cognitionstreams.app;

import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells at INFO, each time a capability is RUNNING, how long it took since it started or last rebalanced, and what
 * it restored into its stores meanwhile (records, stores, the time from the first restore's start to the last's
 * end): a restart's timeline, in the log an operator reads (docs/operations.md, "Starting and stopping").
 */
final class RestoreLog implements StateRestoreListener, KafkaStreams.StateListener {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreLog.class);

    private final String capability;
    private final AtomicLong since = new AtomicLong(System.nanoTime());
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong firstStart = new AtomicLong();
    private final AtomicLong lastEnd = new AtomicLong();
    private final Set<String> stores = new TreeSet<>();

    RestoreLog(String capability) {
        this.capability = capability;
    }

    @Override
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        if (newState == KafkaStreams.State.REBALANCING && oldState == KafkaStreams.State.RUNNING) {
            since.set(System.nanoTime());
        } else if (newState == KafkaStreams.State.RUNNING) {
            long restored = records.getAndSet(0);
            long tookMs = (System.nanoTime() - since.get()) / 1_000_000;
            synchronized (stores) {
                if (restored > 0) {
                    LOG.info("{} running ({} ms), having restored {} records into {} in {} ms", capability, tookMs,
                            restored, stores, (lastEnd.get() - firstStart.get()) / 1_000_000);
                } else {
                    LOG.info("{} running ({} ms), nothing to restore", capability, tookMs);
                }
                stores.clear();
            }
            firstStart.set(0);
        }
    }

    /** Records restored since the capability last ran. */
    long restoredSoFar() {
        return records.get();
    }

    @Override
    public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
        firstStart.compareAndSet(0, System.nanoTime());
        synchronized (stores) {
            stores.add(store);
        }
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
        records.addAndGet(numRestored);
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        lastEnd.set(System.nanoTime());
    }
}
