package io.cognitionstreams.council;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleStatus;

/**
 * Something a council remembers that comes due at a time of its clock: an active role's heartbeat timeout, an open
 * proposal's deadline, or a held vote's (its proposal did not arrive within the time to live). Deadlines at the same
 * time fire roles first, then proposals, then held votes, each kind by id: {@link #indexKey} sorts in that order as
 * text, so the earliest deadline of a council is the first key of a range scan from {@link #indexPrefix}.
 *
 * @param id a role name, a proposal id, or {@code <proposal id>/<role>} for a held vote (role names hold no '/')
 */
public record Deadline(Instant at, Kind kind, String id) {

    /** In firing order at equal times. */
    public enum Kind {
        ROLE, PROPOSAL, HELD_VOTE
    }

    /** Digits of the deadline in an index key: every non-negative epoch millisecond fits, zero-padded. */
    private static final int MILLIS_WIDTH = 19;

    public Deadline {
        if (at.toEpochMilli() < 0) {
            // The envelope refuses timestamps before the epoch, so no deadline is one.
            throw new IllegalArgumentException("deadline " + at + " is before the epoch");
        }
    }

    /** An active role's deadline: when it times out without another heartbeat. Inactive roles have none. */
    public static Optional<Deadline> of(RoleStatus role, RoleLiveness liveness) {
        return liveness.deadline(role).map(at -> new Deadline(at, Kind.ROLE, role.getRole()));
    }

    public static Deadline of(ProposalState proposal) {
        return new Deadline(proposal.getDeadline(), Kind.PROPOSAL, proposal.getProposalId());
    }

    /** A held vote's: it is dropped when its proposal has not come within the time to live of the vote. */
    public static Deadline ofHeld(CouncilMessage vote, Duration proposalTtl) {
        return new Deadline(vote.getTimestamp().plus(proposalTtl), Kind.HELD_VOTE,
                vote.getProposalId() + "/" + vote.getSender());
    }

    /** A held vote's proposal id. */
    public String proposalId() {
        requireHeldVote();
        return id.substring(0, id.lastIndexOf('/'));
    }

    /** A held vote's role. */
    public String role() {
        requireHeldVote();
        return id.substring(id.lastIndexOf('/') + 1);
    }

    private void requireHeldVote() {
        if (kind != Kind.HELD_VOTE) {
            throw new IllegalStateException("a " + kind + " deadline is not a held vote's");
        }
    }

    /** Where the index keys of a council start (council ids hold no '/'). */
    public static String indexPrefix(String council) {
        return council + "/";
    }

    /** {@code <council>/<deadline millis, 19 digits>/<kind ordinal>/<id>}: text order is firing order. */
    public String indexKey(String council) {
        return indexPrefix(council) + String.format("%0" + MILLIS_WIDTH + "d", at.toEpochMilli()) + "/"
                + kind.ordinal() + "/" + id;
    }

    /** The deadline an index key of {@code council} names. */
    public static Deadline ofIndexKey(String council, String key) {
        String prefix = indexPrefix(council);
        int kindAt = prefix.length() + MILLIS_WIDTH + 1;
        if (!key.startsWith(prefix) || key.length() < kindAt + 2 || key.charAt(kindAt - 1) != '/'
                || key.charAt(kindAt + 1) != '/') {
            throw new IllegalArgumentException("'" + key + "' is no deadline index key of council " + council);
        }
        long millis = Long.parseLong(key.substring(prefix.length(), kindAt - 1));
        Kind kind = Kind.values()[key.charAt(kindAt) - '0'];
        return new Deadline(Instant.ofEpochMilli(millis), kind, key.substring(kindAt + 2));
    }
}
