package io.cognitionstreams.topics;

import java.util.Optional;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A compacted topic mirrored into a global store on every instance: a value replaces, a tombstone deletes, and a
 * value the check refuses is logged and leaves the previous one in place, so a bad update (a broken SKILL.md, an
 * ungoverned identity) never takes away what is running. Global stores have no record collector, so a refusal is
 * an error log, not a dead letter.
 */
public final class GlobalMirror {

    private static final Logger LOG = LoggerFactory.getLogger(GlobalMirror.class);

    /** Why a value may not be applied, or empty when it may. */
    @FunctionalInterface
    public interface Check<V> {
        Optional<String> refuse(String key, V value);

        static <V> Check<V> none() {
            return (key, value) -> Optional.empty();
        }
    }

    /**
     * Told of every change applied to the store, on the global thread, also while the store is rebuilt at start-up
     * (Kafka Streams restores a global store through its processor): for a view of the store kept decoded.
     */
    public interface Listener<V> {
        void put(String key, V value);

        void delete(String key);

        static <V> Listener<V> none() {
            return new Listener<>() {
                @Override
                public void put(String key, V value) {
                }

                @Override
                public void delete(String key) {
                }
            };
        }
    }

    private GlobalMirror() {
    }

    public static <V> void add(StreamsBuilder builder, Topic<String, V> topic, String storeName, Check<V> check) {
        add(builder, topic, storeName, check, Listener.none());
    }

    public static <V> void add(StreamsBuilder builder, Topic<String, V> topic, String storeName, Check<V> check,
                               Listener<V> listener) {
        builder.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(storeName),
                        Serdes.String(), topic.valueSerde()).withLoggingDisabled(),
                topic.name(), topic.consumed(), () -> new Loader<>(storeName, check, listener));
    }

    private static final class Loader<V> implements Processor<String, V, Void, Void> {
        private final String storeName;
        private final Check<V> check;
        private final Listener<V> listener;
        private KeyValueStore<String, V> store;

        Loader(String storeName, Check<V> check, Listener<V> listener) {
            this.storeName = storeName;
            this.check = check;
            this.listener = listener;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<String, V> record) {
            if (record.key() == null) {
                LOG.error("record without a key for global store {} ignored", storeName);
            } else if (record.value() == null) {
                store.delete(record.key());
                listener.delete(record.key());
            } else {
                Optional<String> refusal = check.refuse(record.key(), record.value());
                if (refusal.isPresent()) {
                    LOG.error("{} update for key {} refused, the previous value stays: {}", storeName, record.key(),
                            refusal.get());
                } else {
                    store.put(record.key(), record.value());
                    listener.put(record.key(), record.value());
                }
            }
        }
    }
}
