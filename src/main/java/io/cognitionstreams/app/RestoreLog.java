package io.cognitionstreams.app;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells at INFO, each time a capability is RUNNING, how long it took since it started or last rebalanced, and what
 * it restored into its stores meanwhile (records per store, the time from the first restore's start to the last's
 * end, and which of its tasks' stores were restored from the start of their changelogs rather than from where they
 * stopped): a restart's timeline, in the log an operator reads (docs/operations.md, "Starting again").
 */
final class RestoreLog implements StateRestoreListener, KafkaStreams.StateListener {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreLog.class);
    /** What Kafka Streams names the changelog topic of a task's store with; global stores read their own topic. */
    private static final String CHANGELOG_SUFFIX = "-changelog";

    private final String capability;
    private final AtomicLong since = new AtomicLong(System.nanoTime());
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong firstStart = new AtomicLong();
    private final AtomicLong lastEnd = new AtomicLong();
    /** Records restored per store since the capability last ran; guarded by itself. */
    private final Map<String, Long> stores = new TreeMap<>();
    /** The tasks' stores restored from offset 0 of their changelog (global stores always are): guarded by stores. */
    private final Set<String> fromTheStart = new TreeSet<>();

    RestoreLog(String capability) {
        this.capability = capability;
    }

    @Override
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        if (newState == KafkaStreams.State.REBALANCING && oldState == KafkaStreams.State.RUNNING) {
            since.set(System.nanoTime());
        } else if (newState == KafkaStreams.State.RUNNING) {
            LOG.info(running());
        }
    }

    /** What the capability restored since it last ran, said as it runs again; and forgotten, for the next time. */
    String running() {
        long restored = records.getAndSet(0);
        long tookMs = (System.nanoTime() - since.get()) / 1_000_000;
        String line;
        synchronized (stores) {
            stores.values().removeIf(count -> count == 0);
            fromTheStart.retainAll(stores.keySet());
            line = restored == 0 ? capability + " running (" + tookMs + " ms), nothing to restore"
                    : capability + " running (" + tookMs + " ms), having restored " + restored + " records into "
                            + stores + " in " + (lastEnd.get() - firstStart.get()) / 1_000_000 + " ms"
                            + (fromTheStart.isEmpty() ? "" : "; from the start of their changelogs: " + fromTheStart);
            stores.clear();
            fromTheStart.clear();
        }
        firstStart.set(0);
        return line;
    }

    /** Records restored since the capability last ran. */
    long restoredSoFar() {
        return records.get();
    }

    @Override
    public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
        firstStart.compareAndSet(0, System.nanoTime());
        synchronized (stores) {
            stores.putIfAbsent(store, 0L);
            // A task's store resumes after the offset it stopped at; from 0 it had none (a first start, a wiped state
            // directory, a task corrupted by a crash).
            if (startingOffset == 0 && partition.topic().endsWith(CHANGELOG_SUFFIX)) {
                fromTheStart.add(store);
            }
        }
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
        records.addAndGet(numRestored);
        synchronized (stores) {
            stores.merge(store, numRestored, Long::sum);
        }
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        lastEnd.set(System.nanoTime());
    }
}
