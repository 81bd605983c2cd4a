package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.cognitionstreams.schema.MemoryEntry;

/**
 * A task's memory store as {@link EpisodicMemory.Entries}: each entry under {@code <scope> NUL <block id>}, so a
 * scope's entries are one prefix scan (a scope never holds a control character, MemoryScopes).
 */
final class MemoryStore implements EpisodicMemory.Entries {

    private static final char SEPARATOR = '\u0000';

    private final KeyValueStore<String, MemoryEntry> store;

    MemoryStore(KeyValueStore<String, MemoryEntry> store) {
        this.store = store;
    }

    static String key(String scope, String id) {
        return scope + SEPARATOR + id;
    }

    @Override
    public Optional<MemoryEntry> get(String scope, String id) {
        return Optional.ofNullable(store.get(key(scope, id)));
    }

    @Override
    public void put(String scope, MemoryEntry entry) {
        store.put(key(scope, entry.getBlockId()), entry);
    }

    @Override
    public void delete(String scope, String id) {
        store.delete(key(scope, id));
    }

    @Override
    public void forEach(String scope, Consumer<MemoryEntry> each) {
        try (KeyValueIterator<String, MemoryEntry> entries = store.prefixScan(scope + SEPARATOR,
                new StringSerializer())) {
            entries.forEachRemaining(entry -> each.accept(entry.value));
        }
    }

    @Override
    public List<Positioned> after(String after, int max) {
        List<Positioned> found = new ArrayList<>();
        try (KeyValueIterator<String, MemoryEntry> entries = after == null ? store.all() : store.range(after, null)) {
            while (entries.hasNext() && found.size() < max) {
                KeyValue<String, MemoryEntry> next = entries.next();
                if (next.key.equals(after)) {
                    continue;
                }
                found.add(new Positioned(next.key, next.key.substring(0, next.key.indexOf(SEPARATOR)), next.value));
            }
        }
        return found;
    }

    /** Where entry {@code id} is held, by any scope: for a tombstone that does not say its scope (slow, rare). */
    Optional<String> scopeOf(String id) {
        String suffix = SEPARATOR + id;
        try (KeyValueIterator<String, MemoryEntry> entries = store.all()) {
            while (entries.hasNext()) {
                String key = entries.next().key;
                if (key.endsWith(suffix)) {
                    return Optional.of(key.substring(0, key.length() - suffix.length()));
                }
            }
        }
        return Optional.empty();
    }
}
