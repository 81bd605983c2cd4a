package io.cognitionstreams.topics;

import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A topic name bound to its serdes, so no topology can read a topic with the wrong serde.
 *
 * @param name        topic name
 * @param keySerde    key serde: session or council ids as strings, so one session's records stay in one partition
 * @param valueSerde  value serde for the record type
 * @param valueType   record class, for the CLI's JSON codec
 * @param configs     topic-level configs applied at creation (e.g. compaction)
 * @param key         how the app keys its records, for writers outside the app (the CLI)
 * @param role        who produces it and who reads it, for humans (README table, {@code cognition topics})
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde, Class<V> valueType,
                          Map<String, String> configs, TopicKey<V> key, String role) {

    /** Whether the topic keeps the latest value per key, so a null value (a tombstone) deletes a key. */
    public boolean compacted() {
        return configs.getOrDefault(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE)
                .contains(TopicConfig.CLEANUP_POLICY_COMPACT);
    }

    /**
     * The value's Avro schema as the app writes it. Its JSON form defines each named type where it is first used,
     * so it parses on its own, unlike {@code schemas/*.avsc}, which refer to {@code schemas/common}.
     */
    public Schema valueSchema() {
        return SpecificData.get().getSchema(valueType);
    }

    public Consumed<K, V> consumed() {
        return Consumed.with(keySerde, valueSerde).withName("from-" + name);
    }

    public Produced<K, V> produced() {
        return Produced.with(keySerde, valueSerde).withName("to-" + name);
    }

    @Override
    public String toString() {
        return name;
    }
}
