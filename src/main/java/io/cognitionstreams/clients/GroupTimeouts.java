package io.cognitionstreams.clients;

import java.time.Duration;

/**
 * The timeouts that follow from how long a dead member keeps its partitions (the session), for the stream threads
 * and the workers alike.
 */
public final class GroupTimeouts {

    private static final Duration MIN_TRANSACTION = Duration.ofSeconds(2);
    private static final Duration MAX_TRANSACTION = Duration.ofSeconds(10);

    private GroupTimeouts() {
    }

    /** A third of the session, as Kafka advises, so a live member never misses its session for one late beat. */
    public static Duration heartbeat(Duration session) {
        return session.dividedBy(3);
    }

    /**
     * How long a dead member's open transaction may hold the readers of its outputs until the broker aborts it: as
     * long as its partitions wait for a new owner (the session), so that the takeover waits for one and not the
     * other; at most Kafka Streams' 10 s, at least 2 s (the embedded broker's shortest session). A live transaction
     * is open for a commit interval (25 ms by default) plus one loop's processing: model and tool calls are made
     * before a transaction's first write, where the broker's clock starts. A pause long enough to time it out
     * stops the member's heartbeats too, when it is the whole process's, and costs its partitions all the same.
     */
    public static Duration transaction(Duration session) {
        return session.compareTo(MIN_TRANSACTION) < 0 ? MIN_TRANSACTION
                : session.compareTo(MAX_TRANSACTION) > 0 ? MAX_TRANSACTION : session;
    }
}
