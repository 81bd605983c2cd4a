package io.cognitionstreams.timetravel;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionRequest;

/**
 * The time-travel stores as an {@link AutoFixLoop.Memory}. A session's checkpoints are one entry each under
 * {@code <session>/<10-digit sequence>}: the newest is the first entry of a reverse range scan, so finding the next
 * sequence or a recent packet's checkpoint reads only the session's newest entries. Original requests are kept in
 * a window store, so those never judged (dead-lettered on the way) expire.
 */
final class CheckpointStore implements AutoFixLoop.Memory {

    private static final long LAST_SEQUENCE = 9_999_999_999L;

    private final KeyValueStore<String, Checkpoint> store;
    private final WindowStore<String, CognitionRequest> requests;

    CheckpointStore(KeyValueStore<String, Checkpoint> store, WindowStore<String, CognitionRequest> requests) {
        this.store = store;
        this.requests = requests;
    }

    @Override
    public int nextSequence(String session) {
        return latest(session).map(checkpoint -> checkpoint.getSequence() + 1).orElse(0);
    }

    @Override
    public Optional<Checkpoint> latest(String session) {
        try (NewestFirst newest = new NewestFirst(session)) {
            return newest.hasNext() ? Optional.of(newest.next()) : Optional.empty();
        }
    }

    @Override
    public Optional<Checkpoint> ofPacket(String session, String packetId) {
        if (packetId == null) {
            return Optional.empty();
        }
        try (NewestFirst newest = new NewestFirst(session)) {
            return Checkpoints.ofPacket(newest, packetId);
        }
    }

    @Override
    public void put(Checkpoint checkpoint) {
        store.put(Checkpoints.key(checkpoint), checkpoint);
    }

    @Override
    public void keep(CognitionRequest request, long timestamp) {
        requests.put(requestKey(request.getSessionId(), request.getRequestId()), request, timestamp);
    }

    /** The latest version kept, if any. */
    @Override
    public Optional<CognitionRequest> original(String session, String requestId) {
        KeyValue<Long, CognitionRequest> latest = latestKept(requestKey(session, requestId));
        return latest == null ? Optional.empty() : Optional.ofNullable(latest.value);
    }

    /** Forgotten under the window it was kept in: a tombstone in the same window replaces it. */
    @Override
    public void forget(String session, String requestId) {
        String key = requestKey(session, requestId);
        KeyValue<Long, CognitionRequest> latest = latestKept(key);
        if (latest != null) {
            requests.put(key, null, latest.key);
        }
    }

    private KeyValue<Long, CognitionRequest> latestKept(String key) {
        KeyValue<Long, CognitionRequest> latest = null;
        try (WindowStoreIterator<CognitionRequest> versions = requests.fetch(key, 0L, Long.MAX_VALUE)) {
            while (versions.hasNext()) {
                latest = versions.next();
            }
        }
        return latest;
    }

    private static String requestKey(String session, String requestId) {
        return session + "/" + requestId;
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
