package io.cognitionstreams.app;

import java.util.Locale;

/**
 * How the stream threads' consumer groups rebalance (Kafka Streams' {@code group.protocol}). docs/reliability.md,
 * "Takeover by a surviving instance", says what each buys.
 */
public enum GroupProtocol {
    /** Client-side assignment, static membership: a restarted instance takes its own place at once. */
    CLASSIC,
    /**
     * KIP-1071: the broker assigns the tasks, and a group's session timeout and standby replicas are the group's
     * configuration on the broker; no static membership.
     */
    STREAMS;

    /** The value of Kafka Streams' {@code group.protocol}. */
    public String config() {
        return name().toLowerCase(Locale.ROOT);
    }
}
