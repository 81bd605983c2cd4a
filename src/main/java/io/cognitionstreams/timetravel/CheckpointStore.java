package io.cognitionstreams.timetravel;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.cognitionstreams.schema.Checkpoint;

/**
 * A session's checkpoints, one entry each under {@code <session>/<10-digit sequence>}: the newest is the first
 * entry of a reverse range scan, so finding the next sequence or a recent packet's checkpoint reads only the
 * session's newest entries.
 */
final class CheckpointStore {

    private static final long LAST_SEQUENCE = 9_999_999_999L;

    private final KeyValueStore<String, Checkpoint> store;

    CheckpointStore(KeyValueStore<String, Checkpoint> store) {
        this.store = store;
    }

    int nextSequence(String session) {
        return latest(session).map(checkpoint -> checkpoint.getSequence() + 1).orElse(0);
    }

    Optional<Checkpoint> latest(String session) {
        try (NewestFirst newest = new NewestFirst(session)) {
            return newest.hasNext() ? Optional.of(newest.next()) : Optional.empty();
        }
    }

    Optional<Checkpoint> ofPacket(String session, String packetId) {
        if (packetId == null) {
            return Optional.empty();
        }
        try (NewestFirst newest = new NewestFirst(session)) {
            return Checkpoints.ofPacket(newest, packetId);
        }
    }

    void put(Checkpoint checkpoint) {
        store.put(Checkpoints.key(checkpoint), checkpoint);
    }

    /** The session's checkpoints, newest first. A session id with a '/' can share the key range: skipped. */
    private final class NewestFirst implements Iterator<Checkpoint>, AutoCloseable {
        private final String session;
        private final KeyValueIterator<String, Checkpoint> entries;
        private Checkpoint next;

        NewestFirst(String session) {
            this.session = session;
            this.entries = store.reverseRange(Checkpoints.key(session, 0), Checkpoints.key(session, LAST_SEQUENCE));
        }

        @Override
        public boolean hasNext() {
            while (next == null && entries.hasNext()) {
                KeyValue<String, Checkpoint> entry = entries.next();
                if (entry.value != null && entry.value.getSessionId().equals(session)) {
                    next = entry.value;
                }
            }
            return next != null;
        }

        @Override
        public Checkpoint next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Checkpoint current = next;
            next = null;
            return current;
        }

        @Override
        public void close() {
            entries.close();
        }
    }
}
