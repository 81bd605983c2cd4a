package io.cognitionstreams.routing;

import io.cognitionstreams.schema.Marker;

/**
 * Seed 003's "3 consecutive INTERRUPT events -> high risk" (sections 6 and 8.4), counted per session across outputs.
 * An INTERRUPT block adds one; a PLAN, EXECUTE, RESPONSE, VERIFY or unmarked answer means the model went on
 * working, which ends the streak; a THOUGHT_SEED or a preamble is an aside and changes nothing. The escalation is
 * raised once, when the streak reaches the threshold: a fourth interrupt in the same streak adds nothing new.
 */
public final class InterruptStreak {

    public static final int ESCALATE_AT = 3;

    /** Each session's streak, kept between outputs. */
    public interface Memory {
        int streak(String session);

        void streak(String session, int streak);
    }

    private InterruptStreak() {
    }

    /** The streak after {@code marker}. */
    public static int next(int streak, Marker marker) {
        return switch (marker) {
            case INTERRUPT -> streak + 1;
            case THOUGHT_SEED, PREAMBLE, UNKNOWN -> streak;
            default -> 0;
        };
    }

    public static boolean escalates(int before, int after) {
        return before < ESCALATE_AT && after >= ESCALATE_AT;
    }
}
