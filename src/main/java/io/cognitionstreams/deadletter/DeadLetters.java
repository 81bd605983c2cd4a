package io.cognitionstreams.deadletter;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;

import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;

/** Builds dead letters: the reason a record was refused, where it came from, and its bytes as received. */
public final class DeadLetters {

    /** Larger values are cut so one huge record cannot make the dead-letter topic refuse the letter itself. */
    public static final int MAX_KEPT_BYTES = 512 * 1024;

    private DeadLetters() {
    }

    /** Key of a dead letter: its origin, so letters about one source record land together and are easy to find. */
    public static String key(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }

    public static String key(DeadLetter letter) {
        return key(letter.getSourceTopic(), letter.getSourcePartition(), letter.getSourceOffset());
    }

    public static DeadLetter of(ErrorKind kind, Throwable error, Origin origin, byte[] key, byte[] value,
                                Instant now) {
        return DeadLetter.newBuilder()
                .setReason(reason(error))
                .setErrorKind(kind)
                .setErrorClass(error.getClass().getName())
                .setSourceTopic(origin.topic())
                .setSourcePartition(origin.partition())
                .setSourceOffset(origin.offset())
                .setProcessor(origin.processor())
                .setApplicationId(origin.applicationId())
                .setKey(key == null ? null : ByteBuffer.wrap(cut(key)))
                .setValue(value == null ? null : ByteBuffer.wrap(cut(value)))
                .setValueSize(value == null ? 0 : value.length)
                .setTimestamp(now)
                .build();
    }

    /** The message of the error and of each distinct cause, so a reader sees the root problem, not a wrapper. */
    public static String reason(Throwable error) {
        StringBuilder reason = new StringBuilder();
        Throwable current = error;
        int depth = 0;
        while (current != null && depth++ < 5) {
            String message = current.getMessage();
            if (message != null && !message.isBlank() && reason.indexOf(message) < 0) {
                if (reason.length() > 0) {
                    reason.append(" <- ");
                }
                reason.append(message);
            }
            current = current.getCause() == current ? null : current.getCause();
        }
        return reason.length() == 0 ? error.getClass().getSimpleName() : reason.toString();
    }

    private static byte[] cut(byte[] bytes) {
        return bytes.length <= MAX_KEPT_BYTES ? bytes : Arrays.copyOf(bytes, MAX_KEPT_BYTES);
    }

    /** Where a refused record was read and which part of the app refused it. */
    public record Origin(String topic, int partition, long offset, String processor, String applicationId) {
    }
}
