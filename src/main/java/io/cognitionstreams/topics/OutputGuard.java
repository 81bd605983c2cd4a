package io.cognitionstreams.topics;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

import io.cognitionstreams.signing.Sha256;

/**
 * Serializers that refuse, before anything is sent, a record the broker would refuse: a key or value too large for
 * its topic, or the very record the broker refused once already. Kafka Streams hands a serializer's exception to
 * the production handler while the input that caused the record is still known, so it becomes that input's dead
 * letter in a healthy transaction (see {@link OutputLimits} for why the broker's own refusal cannot).
 *
 * <p>The second check is the net under the first: when the broker refuses a record for a reason nothing here
 * predicted, the handler {@link #remember}s it and fails the task; its transaction aborts, the replacement thread
 * reads the input again, produces the same record, and this time it is refused here, with the broker's reason
 * ({@link RefusedBeforeException}), which is how the handler learns which input it was.
 */
public final class OutputGuard {

    /** Enough for every refusal in flight at once; an evicted one costs one more abort, not a stall. */
    private static final int REMEMBERED = 1024;
    private static final Map<Refused, String> REFUSED = Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Refused, String> eldest) {
                    return size() > REMEMBERED;
                }
            });

    private OutputGuard() {
    }

    /** A record the broker refused: its topic and a digest of its value (values can be a megabyte each). */
    private record Refused(String topic, ByteBuffer digest) {
        static Refused of(String topic, byte[] value) {
            return new Refused(topic, ByteBuffer.wrap(Sha256.of(value)));
        }
    }

    /** {@code values} with a serializer that checks each record against {@code limits} first. */
    public static <V> Serde<V> values(Serde<V> values, OutputLimits limits) {
        return Serdes.serdeFrom(new ValueGuard<>(values.serializer(), limits), values.deserializer());
    }

    /** String keys no longer than {@link OutputLimits#MAX_KEY_BYTES}. */
    public static Serde<String> keys() {
        Serde<String> strings = Serdes.String();
        return Serdes.serdeFrom(new KeyGuard(strings.serializer()), strings.deserializer());
    }

    /**
     * Called when the broker refused {@code value} on {@code topic} with {@code refusal}.
     *
     * @return the broker's reason, as the letter will give it
     */
    public static String remember(String topic, byte[] value, Exception refusal) {
        String reason = refusal.getClass().getSimpleName() + ": " + refusal.getMessage();
        if (value != null) {
            REFUSED.put(Refused.of(topic, value), reason);
        }
        return reason;
    }

    /** Whether the broker refused a record for what it is, which sending it again would only repeat. */
    public static boolean isRefusalOfTheRecord(Exception exception) {
        return exception instanceof RecordTooLargeException || exception instanceof RecordBatchTooLargeException
                || exception instanceof InvalidTimestampException
                || exception instanceof org.apache.kafka.common.InvalidRecordException;
    }

    static Optional<String> refusedBefore(String topic, byte[] value) {
        if (REFUSED.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable(REFUSED.remove(Refused.of(topic, value)));
    }

    /** The record a serializer refused, with why; the production handler dead-letters its input. */
    public static class RefusedOutputException extends SerializationException {
        public RefusedOutputException(String message) {
            super(message);
        }
    }

    /**
     * A record the broker refused when it was first sent. By the time the serializer meets it again, other records
     * of the same input may be in the transaction: the handler fails the task once more and has the input refused
     * before anything of it is processed ({@code topology.InputGate}).
     */
    public static final class RefusedBeforeException extends RefusedOutputException {
        private final String brokerReason;

        RefusedBeforeException(String topic, String brokerReason) {
            super("the broker refused a record for " + topic + " that this input led to: " + brokerReason);
            this.brokerReason = brokerReason;
        }

        public String brokerReason() {
            return brokerReason;
        }
    }

    private static final class ValueGuard<V> implements Serializer<V> {
        private final Serializer<V> inner;
        private final OutputLimits limits;

        ValueGuard(Serializer<V> inner, OutputLimits limits) {
            this.inner = inner;
            this.limits = limits;
        }

        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
            inner.configure(configs, isKey);
        }

        @Override
        public byte[] serialize(String topic, V data) {
            return check(topic, null, inner.serialize(topic, data));
        }

        @Override
        public byte[] serialize(String topic, Headers headers, V data) {
            return check(topic, headers, inner.serialize(topic, headers, data));
        }

        private byte[] check(String topic, Headers headers, byte[] bytes) {
            if (bytes == null) {
                return null;
            }
            int size = bytes.length + size(headers);
            int limit = limits.maxValueBytes(topic);
            if (size > limit) {
                throw new RefusedOutputException("a record of " + size + " bytes (value and headers) for " + topic
                        + " is over the " + limit + " bytes the topic takes (max.message.bytes, max.request.size)");
            }
            Optional<String> refused = refusedBefore(topic, bytes);
            if (refused.isPresent()) {
                throw new RefusedBeforeException(topic, refused.get());
            }
            return bytes;
        }

        private static int size(Headers headers) {
            int size = 0;
            if (headers != null) {
                for (Header header : headers) {
                    size += header.key().length() + (header.value() == null ? 0 : header.value().length) + 8;
                }
            }
            return size;
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    private static final class KeyGuard implements Serializer<String> {
        private final Serializer<String> inner;

        KeyGuard(Serializer<String> inner) {
            this.inner = inner;
        }

        @Override
        public byte[] serialize(String topic, String data) {
            byte[] bytes = inner.serialize(topic, data);
            if (bytes != null && bytes.length > OutputLimits.MAX_KEY_BYTES) {
                throw new RefusedOutputException("a key of " + bytes.length + " bytes for " + topic + " is over "
                        + OutputLimits.MAX_KEY_BYTES + ": keys are ids, and this one starts "
                        + new String(Arrays.copyOf(bytes, 40), java.nio.charset.StandardCharsets.UTF_8) + "...");
            }
            return bytes;
        }
    }
}
