package io.cognitionstreams.topics;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * What the brokers accept on each of the app's topics, so that a record they would refuse is refused here first,
 * before it is sent, where it can still become a dead letter of the input that caused it. A refusal by the broker
 * comes back after the send, when the exactly-once transaction holding it can only abort: the input would be read
 * again, refused again, and its partition would stall for good.
 *
 * @param maxRequestBytes the producers' max.request.size
 * @param topics          each topic's own limits; a topic not named has Kafka's defaults
 */
public record OutputLimits(int maxRequestBytes, Map<String, TopicLimits> topics) {

    /** No key the app writes comes near this (ids); a longer one is refused, so the value's room is known. */
    public static final int MAX_KEY_BYTES = 4 * 1024;
    /** A record batch's header and one record's framing, rounded up. */
    public static final int RECORD_OVERHEAD_BYTES = 128;
    /** Kafka's default max.request.size. */
    public static final int DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;

    /**
     * @param maxMessageBytes the topic's max.message.bytes (the largest record batch it takes)
     * @param maxAhead        how far past the broker's clock a record's timestamp may be
     *                        (message.timestamp.after.max.ms); empty when the broker does not check
     * @param maxBehind       how far before the broker's clock it may be (message.timestamp.before.max.ms)
     */
    public record TopicLimits(int maxMessageBytes, Optional<Duration> maxAhead, Optional<Duration> maxBehind) {

        /** Kafka 4's topic defaults: 1 MiB + 12 bytes, at most one hour ahead, any time behind. */
        public static final TopicLimits KAFKA_DEFAULTS =
                new TopicLimits(1024 * 1024 + 12, Optional.of(Duration.ofHours(1)), Optional.empty());
    }

    public OutputLimits {
        topics = Map.copyOf(topics);
    }

    /** Kafka's defaults everywhere: what a cluster nobody tuned accepts, and what tests run with. */
    public static OutputLimits defaults() {
        return new OutputLimits(DEFAULT_MAX_REQUEST_BYTES, Map.of());
    }

    public TopicLimits of(String topic) {
        return topics.getOrDefault(topic, TopicLimits.KAFKA_DEFAULTS);
    }

    /** The most bytes a value (with its record's headers) may have on {@code topic}. */
    public int maxValueBytes(String topic) {
        return Math.min(maxRequestBytes, of(topic).maxMessageBytes()) - MAX_KEY_BYTES - RECORD_OVERHEAD_BYTES;
    }

    /**
     * Why the broker would refuse a record stamped {@code timestamp} on {@code topic} at {@code now}, if it would.
     */
    public Optional<String> refuseTimestamp(String topic, long timestamp, long now) {
        TopicLimits limits = of(topic);
        if (limits.maxAhead().isPresent() && timestamp - now > limits.maxAhead().get().toMillis()) {
            return Optional.of("timestamp " + java.time.Instant.ofEpochMilli(timestamp) + " is "
                    + Duration.ofMillis(timestamp - now) + " ahead of the clock, more than " + topic + " takes ("
                    + TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG + " = " + limits.maxAhead().get() + ")");
        }
        if (limits.maxBehind().isPresent() && now - timestamp > limits.maxBehind().get().toMillis()) {
            return Optional.of("timestamp " + java.time.Instant.ofEpochMilli(timestamp) + " is "
                    + Duration.ofMillis(now - timestamp) + " behind the clock, more than " + topic + " takes ("
                    + TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG + " = " + limits.maxBehind().get() + ")");
        }
        return Optional.empty();
    }

    /** The limits the cluster applies to {@code names}, as their effective topic configs say. */
    public static OutputLimits read(Admin admin, Collection<String> names, int maxRequestBytes) {
        Map<ConfigResource, Config> configs;
        try {
            configs = admin.describeConfigs(names.stream()
                    .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList())
                    .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the topics' configs: " + e.getCause().getMessage(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot read the topics' configs: the cluster did not answer in time", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the topics' configs", e);
        }
        Map<String, TopicLimits> limits = new HashMap<>();
        configs.forEach((resource, config) -> limits.put(resource.name(), limitsOf(config)));
        return new OutputLimits(maxRequestBytes, limits);
    }

    static TopicLimits limitsOf(Config config) {
        int maxMessageBytes = intValue(config, TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                TopicLimits.KAFKA_DEFAULTS.maxMessageBytes());
        // With LogAppendTime the broker stamps records itself and checks nothing.
        ConfigEntry type = config.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
        if (type != null && "LogAppendTime".equals(type.value())) {
            return new TopicLimits(maxMessageBytes, Optional.empty(), Optional.empty());
        }
        return new TopicLimits(maxMessageBytes,
                window(config, TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
                        TopicLimits.KAFKA_DEFAULTS.maxAhead()),
                window(config, TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
                        TopicLimits.KAFKA_DEFAULTS.maxBehind()));
    }

    private static int intValue(Config config, String name, int fallback) {
        ConfigEntry entry = config.get(name);
        return entry == null || entry.value() == null ? fallback : Integer.parseInt(entry.value());
    }

    private static Optional<Duration> window(Config config, String name, Optional<Duration> fallback) {
        ConfigEntry entry = config.get(name);
        if (entry == null || entry.value() == null) {
            return fallback;
        }
        long millis = Long.parseLong(entry.value());
        return millis == Long.MAX_VALUE ? Optional.empty() : Optional.of(Duration.ofMillis(millis));
    }

    /** The producers' max.request.size in a client config, Kafka's default when it is not set. */
    public static int maxRequestBytes(Map<String, ?> producerConfig) {
        Object value = producerConfig.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        return value == null ? DEFAULT_MAX_REQUEST_BYTES : Integer.parseInt(value.toString());
    }
}
