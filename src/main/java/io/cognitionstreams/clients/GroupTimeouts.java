package io.cognitionstreams.clients;

import java.time.Duration;

/**
 * The timeouts that follow from how long a dead member keeps its partitions (the session), for the stream threads
 * and the workers alike.
 */
public final class GroupTimeouts {

    private static final Duration MIN_TRANSACTION = Duration.ofSeconds(5);
    private static final Duration MAX_TRANSACTION = Duration.ofSeconds(10);

    private GroupTimeouts() {
    }

    /** A third of the session, as Kafka advises, so a live member never misses its session for one late beat. */
    public static Duration heartbeat(Duration session) {
        return session.dividedBy(3);
    }

    /**
     * How long a dead member's open transaction may hold the readers of its outputs until the broker aborts it: no
     * longer than its partitions wait for a new owner (the session), at most Kafka Streams' 10 s, and at least 5 s,
     * because a live stream thread's transaction stays open through a rebalance (Kafka Streams defers exactly-once
     * commits until it ends), and under load a rebalance outlasted 3 s: a 3 s timeout aborted live transactions,
     * fencing their threads (docs/reliability.md, "Takeover by a surviving instance").
     */
    public static Duration transaction(Duration session) {
        return session.compareTo(MIN_TRANSACTION) < 0 ? MIN_TRANSACTION
                : session.compareTo(MAX_TRANSACTION) > 0 ? MAX_TRANSACTION : session;
    }
}
