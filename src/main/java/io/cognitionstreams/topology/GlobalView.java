package io.cognitionstreams.topology;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A global store's records kept decoded, by key: what a stream thread reads on every record instead of the store,
 * whose in-memory copy holds bytes and decodes each value on every read (every skill and tool, per request). Fed by
 * its {@link GlobalMirror} on the global thread, restore included, so it holds what the store holds; read by any
 * number of stream threads.
 *
 * <p>The list of every record, and what is derived from it ({@link #derived}), are built once per change, at the
 * first read after it: a restore of many records costs one build, not one per record.
 */
public final class GlobalView<V> implements GlobalMirror.Listener<V> {

    /** The records as of {@code version}; {@code derived} caches one value computed from them. */
    private record Snapshot<V>(long version, List<V> values, AtomicReference<Object> derived) {
    }

    private final ConcurrentSkipListMap<String, V> records = new ConcurrentSkipListMap<>();
    private final AtomicLong version = new AtomicLong();
    private volatile Snapshot<V> snapshot = new Snapshot<>(0, List.of(), new AtomicReference<>());

    @Override
    public void put(String key, V value) {
        records.put(key, value);
        version.incrementAndGet();
    }

    @Override
    public void delete(String key) {
        if (records.remove(key) != null) {
            version.incrementAndGet();
        }
    }

    public Optional<V> get(String key) {
        return Optional.ofNullable(records.get(key));
    }

    /** Every record, in key order. */
    public List<V> values() {
        return snapshot().values();
    }

    /**
     * {@code derive} of every record, in key order, computed once per change (two readers racing may both compute
     * it; either result is kept). One derivation per view: its readers must all pass the same {@code derive}.
     */
    @SuppressWarnings("unchecked")
    public <D> D derived(Function<List<V>, D> derive) {
        Snapshot<V> current = snapshot();
        Object cached = current.derived().get();
        if (cached == null) {
            cached = derive.apply(current.values());
            current.derived().compareAndSet(null, cached);
        }
        return (D) cached;
    }

    private Snapshot<V> snapshot() {
        Snapshot<V> current = snapshot;
        long now = version.get();
        if (current.version() != now) {
            // Read the version before the records: a change made while copying leaves this snapshot older than
            // the version, so the next read builds again.
            current = new Snapshot<>(now, List.copyOf(records.values()), new AtomicReference<>());
            snapshot = current;
        }
        return current;
    }
}
