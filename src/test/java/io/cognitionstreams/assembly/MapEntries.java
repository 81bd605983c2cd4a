package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

import io.cognitionstreams.schema.MemoryEntry;

/** A task's memory store in a sorted map, keyed as {@link MemoryStore} keys it: for tests of the domain alone. */
final class MapEntries implements EpisodicMemory.Entries {

    final TreeMap<String, MemoryEntry> entries = new TreeMap<>();
    int reads;

    @Override
    public Optional<MemoryEntry> get(String scope, String id) {
        reads++;
        return Optional.ofNullable(entries.get(MemoryStore.key(scope, id)));
    }

    @Override
    public void put(String scope, MemoryEntry entry) {
        entries.put(MemoryStore.key(scope, entry.getBlockId()), entry);
    }

    @Override
    public void delete(String scope, String id) {
        entries.remove(MemoryStore.key(scope, id));
    }

    @Override
    public void forEach(String scope, Consumer<MemoryEntry> each) {
        entries.subMap(scope + '\u0000', scope + '\u0001').values().forEach(each);
    }

    @Override
    public List<Positioned> after(String after, int max) {
        List<Positioned> found = new ArrayList<>();
        for (Map.Entry<String, MemoryEntry> next : (after == null ? entries : entries.tailMap(after, false))
                .entrySet()) {
            if (found.size() == max) {
                break;
            }
            found.add(new Positioned(next.getKey(), next.getKey().substring(0, next.getKey().indexOf('\u0000')),
                    next.getValue()));
        }
        return found;
    }
}
