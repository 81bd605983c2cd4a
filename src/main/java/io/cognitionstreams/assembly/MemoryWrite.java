package io.cognitionstreams.assembly;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

import io.cognitionstreams.governance.MemoryScopes;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * A record the assembly writes to cognition.memory, keyed by block id like every entry there, but placed by its
 * scope's owner ({@link MemoryScopes#owner}) rather than by that key: beside the owner's requests, in the partition
 * whose task keeps the scope. A tombstone carries its scope in a header, so that task finds the entry it deletes.
 *
 * @param scope     the entry's scope
 * @param entry     the entry; null for a tombstone
 * @param partition where to write it when that is not the owner's partition (a tombstone for an entry read where
 *                  it did not belong); null for the owner's
 */
public record MemoryWrite(String scope, MemoryEntry entry, Integer partition) {

    /** The header a tombstone on cognition.memory names its entry's scope in. */
    public static final String SCOPE_HEADER = "memory_scope";

    static MemoryWrite entry(MemoryEntry entry) {
        return new MemoryWrite(EpisodicMemory.scopeOf(entry), entry, null);
    }

    static MemoryWrite forget(String scope) {
        return new MemoryWrite(scope, null, null);
    }

    /** The partition {@code scope}'s memories are in, of {@code partitions}. */
    public static int partitionOf(String scope, int partitions) {
        return Topics.partitionOfKey(MemoryScopes.owner(scope), partitions);
    }

    /** The scope a tombstone names, if it names one. */
    public static Optional<String> scopeOf(Headers headers) {
        return Optional.ofNullable(headers.lastHeader(SCOPE_HEADER))
                .map(header -> new String(header.value(), StandardCharsets.UTF_8));
    }

    /** Writes the entry with cognition.memory's own serializer, or a tombstone naming its scope. */
    static Serde<MemoryWrite> serde(Topic<String, MemoryEntry> memory) {
        Serializer<MemoryEntry> entries = memory.valueSerde().serializer();
        return Serdes.serdeFrom(new Serializer<>() {
            @Override
            public byte[] serialize(String topic, MemoryWrite write) {
                throw new UnsupportedOperationException("a memory write needs the record's headers");
            }

            @Override
            public byte[] serialize(String topic, Headers headers, MemoryWrite write) {
                if (write.entry() == null) {
                    headers.remove(SCOPE_HEADER);
                    headers.add(SCOPE_HEADER, write.scope().getBytes(StandardCharsets.UTF_8));
                    return null;
                }
                return entries.serialize(topic, headers, write.entry());
            }
        }, (topic, bytes) -> {
            throw new UnsupportedOperationException("memory writes are only written");
        });
    }
}
