package io.cognitionstreams.prompt;

/**
 * The first line of the message an AutoFix retry puts in front of the model (seed 001's "lesson learned"): the
 * context pruner writes it, and a model client may recognise a retry by it (the replay model answers a retry
 * with its recorded second attempt).
 */
public final class RecoveryLesson {

    public static final String HEADER = "[AUTO-FIX RECOVERY]";

    private RecoveryLesson() {
    }
}
