package io.cognitionstreams.gatekeeper;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the gatekeeper runs. All are checked here, so a bad flag stops the app at start, not at the first call.
 *
 * @param rootCaller        the privileged caller whose calls skip the permission check (and are recorded); empty
 *                          for none, the default: privilege is opt-in
 * @param overloadThreshold the most active skills a session may have before its results carry a cognitive-load
 *                          warning ({@link CognitiveLoad}, default 5)
 * @param resultsRetention  how long, in stream time, a tool result is kept for a replay to answer with
 * @param approval          which approved calls wait for the council ({@link ApprovalRule}, {@code run --approval})
 * @param approvalTimeout   how long a call waits for its council's decision before the gatekeeper denies it
 *                          itself: the council expires a proposal at its time to live, so this only fires when the
 *                          council never took the proposal in (refused it, or is not running)
 */
public record GatekeeperSettings(Optional<String> rootCaller, int overloadThreshold, Duration resultsRetention,
                                 ApprovalRule.Policy approval, Duration approvalTimeout) {

    /**
     * Kafka's default retention of a topic (log.retention.hours, 168): a replay re-sends requests from
     * cognition.requests, so it reaches no further back than that topic keeps them.
     */
    public static final Duration DEFAULT_RESULTS_RETENTION = Duration.ofDays(7);

    public GatekeeperSettings {
        Gatekeeper.requireValidRootCaller(Objects.requireNonNull(rootCaller, "rootCaller"));
        new CognitiveLoad(overloadThreshold); // refuses a negative threshold now
        if (resultsRetention.compareTo(Duration.ofMinutes(1)) < 0) {
            throw new IllegalArgumentException("the retention of recorded tool results must be at least a minute, "
                    + "got " + resultsRetention);
        }
        Objects.requireNonNull(approval, "approval");
        if (approvalTimeout.isZero() || approvalTimeout.isNegative()) {
            throw new IllegalArgumentException("the approval timeout must be positive, got " + approvalTimeout);
        }
    }

    /** Calls wait for the council by the default policy, risky, and at most {@link #DEFAULT_APPROVAL_TIMEOUT}. */
    public GatekeeperSettings(Optional<String> rootCaller, int overloadThreshold, Duration resultsRetention) {
        this(rootCaller, overloadThreshold, resultsRetention, ApprovalRule.Policy.RISKY, DEFAULT_APPROVAL_TIMEOUT);
    }

    /** The council's default proposal time to live (5 minutes) and a minute for its decision to arrive. */
    public static final Duration DEFAULT_APPROVAL_TIMEOUT = Duration.ofMinutes(6);

    public static GatekeeperSettings defaults() {
        return new GatekeeperSettings(Optional.empty(), CognitiveLoad.DEFAULT_THRESHOLD, DEFAULT_RESULTS_RETENTION);
    }

    public GatekeeperSettings withApproval(ApprovalRule.Policy policy, Duration timeout) {
        return new GatekeeperSettings(rootCaller, overloadThreshold, resultsRetention, policy, timeout);
    }

    public ApprovalRule approvalRule() {
        return new ApprovalRule(approval);
    }

    public CognitiveLoad load() {
        return new CognitiveLoad(overloadThreshold);
    }
}
