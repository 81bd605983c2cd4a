package io.cognitionstreams.council;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How a council runs (seed 003 section 8). The defaults are the seed's; tests shorten the times.
 *
 * @param roles            the model roles that heartbeat, propose and vote
 * @param prime            the role whose vote breaks a tie; one of {@code roles}
 * @param quorum           distinct voting roles a decision needs while that many are active; reduced to the active
 *                         roles' count when fewer are active, never below {@link #MIN_QUORUM}
 * @param heartbeatTimeout a role with no heartbeat for longer than this is inactive (roles beat every 30 s)
 * @param proposalTtl      a proposal not decided this long after its timestamp expires; also how long a vote
 *                         waits for a proposal it arrived before
 * @param tick             how often the wall clock is checked for deadlines no record has reached; zero turns the
 *                         wall-clock check off (replays)
 * @param maxClockSkew     how far ahead of the wall clock a message's timestamp may be. The council runs on its
 *                         messages' time and its clock never goes back, so one message from a fast clock would
 *                         time out every other role (docs/council.md, "Time"): such a message is dead-lettered.
 *                         30 s by default: a clock that far ahead moves the council's no further than one
 *                         heartbeat interval, which the 90 s timeout absorbs
 * @param signatures       whether every message must be signed by its sender's key (docs/council.md, "Signatures")
 * @param maxMessageAge    with signatures required, how far behind the wall clock a message's timestamp may be; a
 *                         msg_id is remembered this long, so a replay is refused either as a msg_id seen before or
 *                         as too old
 */
public record CouncilSettings(List<String> roles, String prime, int quorum, Duration heartbeatTimeout,
                              Duration proposalTtl, Duration tick, Duration maxClockSkew, Signatures signatures,
                              Duration maxMessageAge) {

    /** {@code run --council-signatures}. */
    public enum Signatures {
        /** Senders are taken at their word: the demo, and councils ACLs alone protect. */
        OFF,
        /** Unsigned, forged, wrongly keyed, replayed or stale messages are dead-lettered. */
        REQUIRED
    }

    /** Seed 003 section 8.3: any 2 distinct roles. Fewer active roles cannot decide anything. */
    public static final int MIN_QUORUM = 2;
    /** Sender of what the council writes itself: its clock ticks and its escalations. */
    public static final String COUNCIL_SENDER = "council";
    /** Sender of the marker-routing capability's escalations (3 consecutive INTERRUPTs in a session). */
    public static final String ROUTER_SENDER = "router";
    /** Sender of the AutoFix loop's escalations (a stage contract that keeps failing after its retries). */
    public static final String AUTOFIX_SENDER = "autofix";
    /** Sender of the assembly's escalations (a session that took its --auto-continue-steps turns on its own). */
    public static final String ASSEMBLY_SENDER = "assembly";
    /** Sender of the gatekeeper's proposals: a tool call that waits for the council's approval. */
    public static final String GATEKEEPER_SENDER = "gatekeeper";
    /**
     * Open proposals, and votes waiting for a proposal, one council holds at most: a flood of either is refused
     * (dead-lettered) past it, so a council's state stays bounded whatever its writers send.
     */
    public static final int MAX_OPEN = 1000;
    /**
     * How long a decision is remembered after it was taken: late votes and a resent proposal find it meanwhile. A
     * signed message older than --council-max-message-age is refused anyway, so a day is plenty.
     */
    public static final Duration DECIDED_RETENTION = Duration.ofDays(1);

    private static final Pattern ROLE_NAME = Pattern.compile("[a-z0-9_-]+");

    public CouncilSettings {
        roles = List.copyOf(roles);
        for (String role : roles) {
            if (!ROLE_NAME.matcher(role).matches()) {
                throw new IllegalArgumentException("council role '" + role + "' is not lower-case letters, digits, "
                        + "'_' or '-'");
            }
            if (isReserved(role)) {
                throw new IllegalArgumentException("'" + role + "' is a reserved sender, not a council role");
            }
        }
        if (roles.stream().distinct().count() != roles.size()) {
            throw new IllegalArgumentException("council roles " + roles + " name a role twice");
        }
        if (!roles.contains(prime)) {
            throw new IllegalArgumentException("prime role '" + prime + "' is not one of the council roles " + roles);
        }
        if (quorum < MIN_QUORUM || quorum > roles.size()) {
            throw new IllegalArgumentException("quorum " + quorum + " is outside " + MIN_QUORUM + ".." + roles.size()
                    + " (the number of roles)");
        }
        requirePositive("heartbeat timeout", heartbeatTimeout);
        requirePositive("proposal time to live", proposalTtl);
        if (tick.isNegative()) {
            throw new IllegalArgumentException("tick " + tick + " is negative");
        }
        requirePositive("maximum clock skew", maxClockSkew);
        requirePositive("maximum message age", maxMessageAge);
    }

    /** Signatures off, messages at most {@link #DEFAULT_MAX_MESSAGE_AGE} old when they are turned on. */
    public CouncilSettings(List<String> roles, String prime, int quorum, Duration heartbeatTimeout,
                           Duration proposalTtl, Duration tick, Duration maxClockSkew) {
        this(roles, prime, quorum, heartbeatTimeout, proposalTtl, tick, maxClockSkew, Signatures.OFF,
                DEFAULT_MAX_MESSAGE_AGE);
    }

    /** Whether {@code sender} is one of the app's own senders, which sign with the app's key. */
    public static boolean isReserved(String sender) {
        return sender.equals(COUNCIL_SENDER) || sender.equals(ROUTER_SENDER) || sender.equals(AUTOFIX_SENDER)
                || sender.equals(ASSEMBLY_SENDER) || sender.equals(GATEKEEPER_SENDER);
    }

    public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofSeconds(30);
    /**
     * 5 minutes: longer than a role's heartbeat interval and the pipeline's delay before routing escalates, short
     * enough that the msg_ids remembered against replays stay few.
     */
    public static final Duration DEFAULT_MAX_MESSAGE_AGE = Duration.ofMinutes(5);

    /**
     * Prime, Lite and CodeMind; 90 s heartbeat timeout, proposals open 5 minutes, wall clock checked every 5 s,
     * messages at most 30 s ahead.
     */
    public static CouncilSettings defaults() {
        return new CouncilSettings(List.of("prime", "lite", "codemind"), "prime", MIN_QUORUM, Duration.ofSeconds(90),
                Duration.ofMinutes(5), Duration.ofSeconds(5), DEFAULT_MAX_CLOCK_SKEW);
    }

    public CouncilSettings withTimes(Duration heartbeatTimeout, Duration proposalTtl, Duration tick) {
        return new CouncilSettings(roles, prime, quorum, heartbeatTimeout, proposalTtl, tick, maxClockSkew,
                signatures, maxMessageAge);
    }

    public CouncilSettings withMaxClockSkew(Duration skew) {
        return new CouncilSettings(roles, prime, quorum, heartbeatTimeout, proposalTtl, tick, skew, signatures,
                maxMessageAge);
    }

    public CouncilSettings withSignatures(Signatures required, Duration maxAge) {
        return new CouncilSettings(roles, prime, quorum, heartbeatTimeout, proposalTtl, tick, maxClockSkew, required,
                maxAge);
    }

    private static void requirePositive(String name, Duration value) {
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " " + value + " must be positive");
        }
    }
}
