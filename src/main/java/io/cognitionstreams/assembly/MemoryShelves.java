package io.cognitionstreams.assembly;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The memory scopes one instance has in its heap, as {@link Shelf shelves}: those its tasks searched or wrote lately,
 * within a bound in bytes. Past the bound the least recently used shelf goes, and so does any shelf unused for the
 * idle time; either comes back from its task's state store the next time its scope is used. The store is what holds
 * the memories: a shelf is a copy, so dropping one loses nothing.
 *
 * <p>Shared by the instance's stream threads; each shelf is only ever used by the task that holds its scope. A task
 * drops its shelves whenever it is initialized or closed, since Kafka Streams may then have rolled its store back to
 * its last commit or given it to another instance.
 */
public final class MemoryShelves {

    /** Heap for shelves when the operator names none: about 75,000 distinct memories. */
    public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;

    private final long maxBytes;
    private final long idleNanos;
    private final Map<String, Held> shelves = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private long loads;
    private long evictions;

    private record Held(Shelf shelf, long bytes, long usedAt) {
    }

    /**
     * @param maxBytes heap the shelves may take, about; one shelf larger than it is still kept while in use
     * @param idle     a shelf unused this long is dropped
     */
    public MemoryShelves(long maxBytes, Duration idle) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("the memory cache must be 0 bytes or more, was " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.idleNanos = idle.toNanos();
    }

    /** The shelf of {@code scope} held for {@code task}, if one is: marked as just used. */
    synchronized Shelf get(String task, String scope) {
        Held held = shelves.get(key(task, scope));
        if (held == null) {
            return null;
        }
        shelves.put(key(task, scope), new Held(held.shelf(), held.bytes(), System.nanoTime()));
        return held.shelf();
    }

    /** Holds {@code shelf}, just loaded from the task's store, letting go of the least used ones past the bound. */
    synchronized void put(String task, String scope, Shelf shelf) {
        loads++;
        Held previous = shelves.put(key(task, scope), new Held(shelf, shelf.bytes(), System.nanoTime()));
        bytes += shelf.bytes() - (previous == null ? 0 : previous.bytes());
        evict();
    }

    /** {@code scope}'s shelf changed size: counted again, and the bound kept. */
    synchronized void resized(String task, String scope) {
        String key = key(task, scope);
        Held held = shelves.get(key);
        if (held != null) {
            long now = held.shelf().bytes();
            bytes += now - held.bytes();
            shelves.put(key, new Held(held.shelf(), now, System.nanoTime()));
            evict();
        }
    }

    /** Forgets every shelf of {@code task}. */
    synchronized void drop(String task) {
        String prefix = task + '\u0000';
        Iterator<Map.Entry<String, Held>> all = shelves.entrySet().iterator();
        while (all.hasNext()) {
            Map.Entry<String, Held> next = all.next();
            if (next.getKey().startsWith(prefix)) {
                bytes -= next.getValue().bytes();
                all.remove();
            }
        }
    }

    /** Lets go of the shelves unused for the idle time. @return how many */
    synchronized int dropIdle() {
        long before = System.nanoTime() - idleNanos;
        int dropped = 0;
        Iterator<Held> all = shelves.values().iterator();
        // Least recently used first: the first one used since is where the idle ones end.
        while (all.hasNext()) {
            Held next = all.next();
            if (next.usedAt() - before > 0) {
                break;
            }
            bytes -= next.bytes();
            all.remove();
            dropped++;
        }
        evictions += dropped;
        return dropped;
    }

    /** Shelves held, their bytes, loads from the stores and shelves let go since the start: for logs and metrics. */
    public synchronized String describe() {
        return String.format("%d scopes in %.1f MiB of %.0f MiB, %d loads, %d let go", shelves.size(),
                bytes / 1048576.0, maxBytes / 1048576.0, loads, evictions);
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized int size() {
        return shelves.size();
    }

    private void evict() {
        Iterator<Held> all = shelves.values().iterator();
        // The shelf just used is last: it stays even when it alone is over the bound.
        while (bytes > maxBytes && shelves.size() > 1 && all.hasNext()) {
            bytes -= all.next().bytes();
            all.remove();
            evictions++;
        }
    }

    private static String key(String task, String scope) {
        return task + '\u0000' + scope;
    }
}
