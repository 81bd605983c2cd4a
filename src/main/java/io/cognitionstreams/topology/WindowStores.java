package io.cognitionstreams.topology;

import java.time.Duration;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.OffsetCheckpoint;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * Persistent window stores that a clean stop leaves resumable even when they hold nothing.
 *
 * <p>Since Kafka Streams 4.3 (KIP-1035) a RocksDB store keeps its changelog offset inside itself, and a window store
 * keeps it in its time segments: with no segment (nothing recorded yet, or all of it past retention) it has no offset
 * to give at the next start, however cleanly it was closed. Under exactly-once, a store without an offset in a task
 * directory where other stores have data is taken for one a crash left with uncommitted writes: the whole task is
 * wiped and restored from its changelogs (TaskCorruptedException). The gatekeeper's tasks, whose results store is
 * empty until a tool result is recorded, were wiped that way at every start after a clean stop (docs/reliability.md,
 * "What a clean stop guarantees"); Kafka 4.4.0 does the same.
 *
 * <p>A store holding no record has nothing uncommitted in it whatever happened before, and the whole of its changelog
 * rebuilds it: such a store answers Kafka's "offset unknown", which restores its changelog from the beginning and
 * keeps the task's other stores. A store holding records answers as Kafka's own does.
 */
public final class WindowStores {

    private WindowStores() {
    }

    /** As {@link Stores#persistentWindowStore(String, Duration, Duration, boolean)}, without duplicates. */
    public static WindowBytesStoreSupplier persistent(String name, Duration retention, Duration windowSize) {
        return new Supplier(Stores.persistentWindowStore(name, retention, windowSize, false));
    }

    private record Supplier(WindowBytesStoreSupplier rocksDb) implements WindowBytesStoreSupplier {

        @Override
        public String name() {
            return rocksDb.name();
        }

        @Override
        public WindowStore<Bytes, byte[]> get() {
            return new ResumableWhenEmpty(rocksDb.get());
        }

        @Override
        public String metricsScope() {
            return rocksDb.metricsScope();
        }

        @Override
        public long segmentIntervalMs() {
            return rocksDb.segmentIntervalMs();
        }

        @Override
        public long windowSize() {
            return rocksDb.windowSize();
        }

        @Override
        public boolean retainDuplicates() {
            return rocksDb.retainDuplicates();
        }

        @Override
        public long retentionPeriod() {
            return rocksDb.retentionPeriod();
        }
    }

    /**
     * Kafka's RocksDB window store, but for its committed offset when it has none. A {@link WrappedStateStore}, as
     * Kafka's own layers are, so that what Kafka looks up through the layers (timestamps, headers, retention) it
     * still finds.
     */
    static final class ResumableWhenEmpty extends WrappedStateStore<WindowStore<Bytes, byte[]>, Bytes, byte[]>
            implements WindowStore<Bytes, byte[]> {

        ResumableWhenEmpty(WindowStore<Bytes, byte[]> rocksDb) {
            super(rocksDb);
        }

        @Override
        public Long committedOffset(TopicPartition partition) {
            Long committed = wrapped().committedOffset(partition);
            if (committed != null) {
                return committed;
            }
            try (KeyValueIterator<Windowed<Bytes>, byte[]> records = wrapped().all()) {
                return records.hasNext() ? null : OffsetCheckpoint.OFFSET_UNKNOWN;
            }
        }

        @Override
        public void put(Bytes key, byte[] value, long windowStartTimestamp) {
            wrapped().put(key, value, windowStartTimestamp);
        }

        @Override
        public byte[] fetch(Bytes key, long time) {
            return wrapped().fetch(key, time);
        }

        @Override
        public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
            return wrapped().fetch(key, timeFrom, timeTo);
        }

        @Override
        public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
            return wrapped().backwardFetch(key, timeFrom, timeTo);
        }

        @Override
        public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom,
                                                               long timeTo) {
            return wrapped().fetch(keyFrom, keyTo, timeFrom, timeTo);
        }

        @Override
        public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo, long timeFrom,
                                                                       long timeTo) {
            return wrapped().backwardFetch(keyFrom, keyTo, timeFrom, timeTo);
        }

        @Override
        public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
            return wrapped().all();
        }

        @Override
        public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
            return wrapped().backwardAll();
        }

        @Override
        public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
            return wrapped().fetchAll(timeFrom, timeTo);
        }

        @Override
        public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
            return wrapped().backwardFetchAll(timeFrom, timeTo);
        }
    }
}
