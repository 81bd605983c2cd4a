package io.cognitionstreams.deadletter;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;

import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.telemetry.Meters;
import io.cognitionstreams.topics.Topics;

/** Builds dead letters: the reason a record was refused, where it came from, and its bytes as received. */
public final class DeadLetters {

    /**
     * Larger values are cut so one huge record cannot make the dead-letter topic refuse the letter itself: a letter
     * the broker refused would abort its transaction, and the record would be read and refused forever.
     */
    public static final int MAX_KEPT_BYTES = 512 * 1024;
    /** Keys are ids; a longer one is cut like a value. */
    public static final int MAX_KEPT_KEY_BYTES = 16 * 1024;
    /** A reason quotes what it refused; longer reasons are cut. */
    public static final int MAX_REASON_CHARS = 8 * 1024;
    /** The most a letter can take with all of the above: the dead-letter topic must accept records this large. */
    public static final int MAX_LETTER_BYTES = MAX_KEPT_BYTES + MAX_KEPT_KEY_BYTES + 4 * MAX_REASON_CHARS + 4096;

    private DeadLetters() {
    }

    /** Key of a dead letter: its origin, so letters about one source record land together and are easy to find. */
    public static String key(String topic, int partition, long offset) {
        return Topics.deadLetterKey(topic, partition, offset);
    }

    public static String key(DeadLetter letter) {
        return key(letter.getSourceTopic(), letter.getSourcePartition(), letter.getSourceOffset());
    }

    public static DeadLetter of(ErrorKind kind, Throwable error, Origin origin, byte[] key, byte[] value,
                                Instant now) {
        Meters.deadLetter(origin.applicationId(), kind.name(), origin.topic());
        return DeadLetter.newBuilder()
                .setReason(cut(reason(error)))
                .setErrorKind(kind)
                .setErrorClass(error.getClass().getName())
                .setSourceTopic(origin.topic())
                .setSourcePartition(origin.partition())
                .setSourceOffset(origin.offset())
                .setProcessor(origin.processor())
                .setApplicationId(origin.applicationId())
                .setKey(key == null ? null : ByteBuffer.wrap(cut(key, MAX_KEPT_KEY_BYTES)))
                .setValue(value == null ? null : ByteBuffer.wrap(cut(value, MAX_KEPT_BYTES)))
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

    private static byte[] cut(byte[] bytes, int max) {
        return bytes.length <= max ? bytes : Arrays.copyOf(bytes, max);
    }

    private static String cut(String reason) {
        if (reason.length() <= MAX_REASON_CHARS) {
            return reason;
        }
        int end = MAX_REASON_CHARS;
        if (Character.isHighSurrogate(reason.charAt(end - 1))) {
            end--;
        }
        return reason.substring(0, end) + "... (" + (reason.length() - end) + " more characters)";
    }

    /** Where a refused record was read and which part of the app refused it. */
    public record Origin(String topic, int partition, long offset, String processor, String applicationId) {
    }
}
