package io.cognitionstreams.timetravel;

import java.time.Instant;

import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionRequest;

/**
 * Seed 001's AutoFixLoop decision: after a failed answer, retry (at most {@code maxRetries} times) or give up and
 * escalate; and what a retry is. A retry is the original request again with the same request id (so its packet id,
 * derived from request id and retry count, is the same on every replay), {@code retry_count + 1}, the failure as
 * {@code retry_reason} (the assembly prunes the history and adds it as the one recovery lesson),
 * {@code parent_id} = the failed packet (lineage) and {@code history_until} = the history reference of the
 * previous checkpoint (the history before the failed turn: the time travel).
 */
public record AutoFixPolicy(int maxRetries) {

    public static final int DEFAULT_MAX_RETRIES = 2;

    public AutoFixPolicy {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("max_retries must not be negative: " + maxRetries);
        }
    }

    public static AutoFixPolicy defaults() {
        return new AutoFixPolicy(DEFAULT_MAX_RETRIES);
    }

    /** Whether the attempt that failed, itself retry number {@code failedRetryCount}, may be retried. */
    public boolean mayRetry(int failedRetryCount) {
        return failedRetryCount < maxRetries;
    }

    /**
     * @param original the request as first sent (retry fields are replaced)
     * @param failed   the failed packet's checkpoint: the previous checkpoint the retry travels back to
     * @param at       when the retry is decided: the failed answer's time
     */
    public CognitionRequest retry(CognitionRequest original, Checkpoint failed, String reason, Instant at) {
        if (!mayRetry(failed.getRetryCount())) {
            throw new IllegalStateException("attempt " + failed.getRetryCount() + " was the last of " + maxRetries);
        }
        return CognitionRequest.newBuilder(original)
                .setParentId(failed.getPacketId())
                .setRetryCount(failed.getRetryCount() + 1)
                .setRetryReason(reason)
                .setHistoryUntil(Checkpoints.historyUntil(failed))
                .setTimestamp(at)
                .build();
    }
}
