package io.cognitionstreams.topology;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.telemetry.IntervalLog;
import io.cognitionstreams.topics.Topic;

/**
 * A compacted topic mirrored into a global store on every instance: a value replaces, a tombstone deletes, and a
 * value that cannot be decoded or that the check refuses leaves the previous one in place, so a bad update (a
 * broken SKILL.md, an ungoverned identity, bytes that are not a record at all) never takes away what is running.
 *
 * <p>Why the mirror reads raw bytes and decodes them itself: a global thread has no record collector, so Kafka
 * Streams cannot write the dead letter a handler returns for it (it dies with a ClassCastException instead, and
 * dies again on every start while the record is on the topic). Decoding here means no bad record ever reaches a
 * handler on the global thread. The letter is written by {@link #guard}, an ordinary stream task over the same
 * topic in the capability that owns it, inside its exactly-once transaction: one letter per bad record, however
 * many instances and capabilities mirror the topic.
 */
public final class GlobalMirror {

    private static final Logger LOG = LoggerFactory.getLogger(GlobalMirror.class);

    /** Why a value may not be applied, or empty when it may. */
    @FunctionalInterface
    public interface Check<V> {
        Optional<String> refuse(String key, V value);

        /** Why the record under {@code key} may not be deleted (a tombstone); by default it may. */
        default Optional<String> refuseDeletion(String key) {
            return Optional.empty();
        }

        static <V> Check<V> none() {
            return (key, value) -> Optional.empty();
        }

        /** {@code check}, and no tombstone deletes anything: the topic always holds a current value. */
        static <V> Check<V> undeletable(Check<V> check, String why) {
            return new Check<>() {
                @Override
                public Optional<String> refuse(String key, V value) {
                    return check.refuse(key, value);
                }

                @Override
                public Optional<String> refuseDeletion(String key) {
                    return Optional.of(why);
                }
            };
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
                topic.name(), Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("from-" + topic.name()),
                () -> new Loader<>(storeName, topic, check, listener));
    }

    /**
     * Dead-letters what the mirrors of {@code topic} skip: undecodable bytes (through the deserialization handler)
     * and values {@code check} refuses. Added once, by the capability that owns the topic; the others list the
     * topic as a secondary input so their handlers add no second letter.
     */
    public static <V> void guard(StreamsBuilder builder, Topic<String, V> topic, Check<V> check) {
        builder.stream(topic.name(), topic.consumed())
                .process(() -> new Guard<>(check), Named.as("guard-" + topic.name()));
    }

    /**
     * What every instance's mirror of {@code topic} holds now, by key, read with a plain consumer (read_committed,
     * to where the topic ends): for commands that show governed records as the app applies them. Records the mirror
     * would skip are skipped here too.
     */
    public static <V> SortedMap<String, V> snapshot(Map<String, Object> clientConfig, Topic<String, V> topic,
                                                    Check<V> check) {
        SortedMap<String, V> held = new TreeMap<>();
        replay(clientConfig, topic, check, new Listener<>() {
            @Override
            public void put(String key, V value) {
                held.put(key, value);
            }

            @Override
            public void delete(String key) {
                held.remove(key);
            }
        });
        return held;
    }

    /**
     * Tells {@code listener} every change a mirror of {@code topic} would apply, in order, read as
     * {@link #snapshot} reads: for a command that keeps its own view of the records, as a capability's listener
     * does, rather than every record whole.
     */
    public static <V> void replay(Map<String, Object> clientConfig, Topic<String, V> topic, Check<V> check,
                                  Listener<V> listener) {
        Deserializer<V> values = topic.valueSerde().deserializer();
        TopicReader.readToEnd(clientConfig, topic.name(), Optional.empty(), record -> {
            String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
            if (key == null) {
                return;
            }
            if (record.value() == null) {
                if (check.refuseDeletion(key).isEmpty()) {
                    listener.delete(key);
                }
                return;
            }
            V value;
            try {
                value = values.deserialize(topic.name(), record.headers(), record.value());
            } catch (RuntimeException e) {
                return;
            }
            if (check.refuse(key, value).isEmpty()) {
                listener.put(key, value);
            }
        });
    }

    /** Applies one record to the store; never throws, because nothing on the global thread may. */
    private static final class Loader<V> implements Processor<String, byte[], Void, Void> {
        private final String storeName;
        private final Topic<String, V> topic;
        private final Check<V> check;
        private final Listener<V> listener;
        private final IntervalLog skipped;
        private Deserializer<V> values;
        private ProcessorContext<Void, Void> context;
        private KeyValueStore<String, V> store;

        Loader(String storeName, Topic<String, V> topic, Check<V> check, Listener<V> listener) {
            this.storeName = storeName;
            this.topic = topic;
            this.check = check;
            this.listener = listener;
            this.skipped = new IntervalLog(LOG, "global store " + storeName + " skipped a record of " + topic.name()
                    + ", the previous value stays (its dead letter comes from the topic's owner)",
                    Duration.ofMinutes(1));
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.context = context;
            store = context.getStateStore(storeName);
            values = topic.valueSerde().deserializer();
        }

        @Override
        public void process(Record<String, byte[]> record) {
            try {
                apply(record);
            } catch (RuntimeException e) {
                if (AvroSerdes.isRegistryOutage(e)) {
                    // Not the record's fault: skipping it would lose a good update for as long as the app runs.
                    throw e;
                }
                skip(record.key(), e.getMessage() != null ? e.getMessage() : e.toString());
            }
        }

        private void apply(Record<String, byte[]> record) {
            String key = record.key();
            if (key == null) {
                skip(null, "no key");
            } else if (record.value() == null) {
                Optional<String> refusal = check.refuseDeletion(key);
                if (refusal.isPresent()) {
                    skip(key, refusal.get());
                } else {
                    store.delete(key);
                    listener.delete(key);
                }
            } else {
                V value = values.deserialize(topic.name(), record.headers(), record.value());
                Optional<String> refusal = check.refuse(key, value);
                if (refusal.isPresent()) {
                    skip(key, refusal.get());
                } else {
                    store.put(key, value);
                    listener.put(key, value);
                }
            }
        }

        private void skip(String key, String reason) {
            String at = context.recordMetadata().map(GlobalMirror::position).orElse(topic.name());
            skipped.warn(at + " key " + key + ": " + reason);
        }
    }

    /** Throws what the mirrors refuse, so the deserialization and processing handlers dead-letter it. */
    private static final class Guard<V> implements Processor<String, V, Void, Void> {
        private final Check<V> check;

        Guard(Check<V> check) {
            this.check = check;
        }

        @Override
        public void process(Record<String, V> record) {
            if (record.key() == null) {
                throw new InvalidRecordException("record without a key: a compacted topic's records are keyed");
            }
            Optional<String> refusal = record.value() == null ? check.refuseDeletion(record.key())
                    : check.refuse(record.key(), record.value());
            refusal.ifPresent(reason -> {
                throw new InvalidRecordException(reason);
            });
        }
    }

    private static String position(RecordMetadata metadata) {
        return metadata.topic() + "-" + metadata.partition() + "@" + metadata.offset();
    }
}
