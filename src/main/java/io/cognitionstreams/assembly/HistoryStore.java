package io.cognitionstreams.assembly;

import java.util.Iterator;
import java.util.NoSuchElementException;

import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.HistoryEntry;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * A session's messages, one store entry each under {@code <session>/<10-digit sequence>}, so that assembling a turn
 * reads only the newest messages that fit its budget (a reverse range scan) and costs the same at 10 turns or
 * 1,000. Each message is counted once, when it is added, in the session's encoding.
 */
final class HistoryStore {

    private final KeyValueStore<String, HistoryEntry> store;

    HistoryStore(KeyValueStore<String, HistoryEntry> store) {
        this.store = store;
    }

    static String key(String session, long sequence) {
        return session + "/" + String.format("%010d", sequence);
    }

    void append(String session, long sequence, ChatMessage message, String encoding, String packetId) {
        store.put(key(session, sequence), HistoryEntry.newBuilder()
                .setMessage(message).setEncoding(encoding).setPacketId(packetId).build());
    }

    /**
     * Newest first; counts made in another encoding are recounted with {@code counter}. Close it: it holds a
     * store iterator.
     */
    NewestFirst newestFirst(String session, long nextSequence, TokenCounter counter) {
        if (nextSequence == 0) {
            return new NewestFirst(null, counter);
        }
        return new NewestFirst(store.reverseRange(key(session, 0), key(session, nextSequence - 1)), counter);
    }

    static final class NewestFirst implements Iterator<ChatMessage>, AutoCloseable {
        private final KeyValueIterator<String, HistoryEntry> entries;
        private final TokenCounter counter;

        private NewestFirst(KeyValueIterator<String, HistoryEntry> entries, TokenCounter counter) {
            this.entries = entries;
            this.counter = counter;
        }

        @Override
        public boolean hasNext() {
            return entries != null && entries.hasNext();
        }

        @Override
        public ChatMessage next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            HistoryEntry entry = entries.next().value;
            ChatMessage message = entry.getMessage();
            if (!entry.getEncoding().equals(counter.encodingName()) || message.getTokenCount() == null) {
                return ChatMessage.newBuilder(message).setTokenCount(counter.count(message.getContent())).build();
            }
            return message;
        }

        @Override
        public void close() {
            if (entries != null) {
                entries.close();
            }
        }
    }
}
