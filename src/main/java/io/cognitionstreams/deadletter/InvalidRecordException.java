package io.cognitionstreams.deadletter;

/**
 * A record that decoded fine but breaks a rule of its topic (missing text, an MTU out of range, an oversized
 * prompt). Thrown from a topology's validation step; {@link DeadLetterHandler} turns it into a VALIDATION
 * dead letter and the stream moves on to the next record.
 */
public class InvalidRecordException extends RuntimeException {

    public InvalidRecordException(String reason) {
        super(reason);
    }
}
