package io.cognitionstreams.council;

import java.util.List;
import java.util.Optional;

import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleStatus;

/**
 * What a council remembers between messages. The topology backs it with changelogged state stores, so it survives
 * restarts and moves with its partition; everything is per council id. Lists come in a stable order (by key), so
 * the council's answers do not depend on how a store iterates. The memory keeps its own index of what comes due when
 * ({@link #nextDeadline}) and its counts in step with every change of roles, proposals and held votes, so the
 * council never scans them to find the next deadline or to enforce its limits.
 */
public interface CouncilMemory {

    /** The council's clock: the latest timestamp it has taken in; empty before its first message. */
    Optional<Long> clock(String council);

    void clock(String council, long time);

    Optional<RoleStatus> role(String council, String role);

    /** Every role heard from, by role name. */
    List<RoleStatus> roles(String council);

    void role(RoleStatus status);

    Optional<ProposalState> proposal(String council, String proposalId);

    /** Open proposals, by id. */
    List<ProposalState> proposals(String council);

    void proposal(ProposalState proposal);

    /** How many proposals are open. */
    int proposalCount(String council);

    /** The decision of a decided proposal; kept so a late vote or a resent proposal never decides it again. */
    Optional<CouncilDecision> decision(String council, String proposalId);

    /** Closes the proposal: it is no longer open, and the decision is remembered. */
    void decide(CouncilDecision decision);

    Optional<CouncilMessage> heldVote(String council, String proposalId, String role);

    /** Votes waiting for a proposal they arrived before, by proposal id and role. */
    List<CouncilMessage> heldVotes(String council);

    /** The held votes on one proposal, by role. */
    List<CouncilMessage> heldVotes(String council, String proposalId);

    /** How many votes are held. */
    int heldVoteCount(String council);

    void hold(CouncilMessage vote);

    void release(CouncilMessage vote);

    /**
     * What comes due first: the earliest {@link Deadline} of the council's active roles, open proposals and held
     * votes, in firing order; each names an entry that is there. Found without a scan of them.
     */
    Optional<Deadline> nextDeadline(String council);

    /** The role's public key on council.keys, when it has one. */
    Optional<CouncilKey> roleKey(String role);

    /** The timestamp of the message already taken in with this msg_id, within the replay window. */
    Optional<Long> seen(String council, String msgId);

    /** Remembers a msg_id taken in, so that a replay of it is refused. */
    void seen(String council, String msgId, long timestamp);
}
