package io.cognitionstreams.council;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.cognitionstreams.schema.CastVote;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.signing.Sha256;

/**
 * Counts a proposal's votes (seed 003 section 8.3). A decision needs votes from {@link #needed} distinct roles;
 * ABSTAIN counts toward that quorum (the role took part) but not toward the majority. Then the majority of YES
 * and NO wins, and a tie goes to Prime's vote. A tie Prime has not broken (Prime abstained or has not voted)
 * waits for Prime until the deadline.
 */
public final class ProposalTally {

    private final CouncilSettings settings;

    public ProposalTally(CouncilSettings settings) {
        this.settings = settings;
    }

    /**
     * Votes a decision needs with {@code active} roles active: the configured quorum, reduced to the number of
     * active roles when fewer are active (seed 003 section 8.5), never below {@link CouncilSettings#MIN_QUORUM}.
     */
    public int needed(int active) {
        return Math.max(CouncilSettings.MIN_QUORUM, Math.min(settings.quorum(), active));
    }

    /** The decision the votes cast so far reach with these roles active, if they reach one. */
    public Optional<CouncilDecision> decide(ProposalState proposal, Set<String> active, Instant at) {
        if (active.size() < CouncilSettings.MIN_QUORUM) {
            return Optional.of(decision(proposal, CouncilOutcome.NO_QUORUM, false, at,
                    "only " + active.size() + " active role(s) " + new TreeSet<>(active) + ": a decision needs "
                            + CouncilSettings.MIN_QUORUM));
        }
        int needed = needed(active.size());
        List<CastVote> votes = proposal.getVotes();
        if (votes.size() < needed) {
            return Optional.empty();
        }
        long yes = count(votes, Vote.YES);
        long no = count(votes, Vote.NO);
        String tally = yes + " yes, " + no + " no, " + count(votes, Vote.ABSTAIN) + " abstain; quorum " + needed
                + " of " + active.size() + " active roles";
        if (yes != no) {
            return Optional.of(decision(proposal, yes > no ? CouncilOutcome.APPROVED : CouncilOutcome.REJECTED,
                    false, at, "majority: " + tally));
        }
        Optional<Vote> prime = votes.stream().filter(vote -> vote.getRole().equals(settings.prime()))
                .map(CastVote::getVote).filter(vote -> vote != Vote.ABSTAIN).findFirst();
        return prime.map(vote -> decision(proposal,
                vote == Vote.YES ? CouncilOutcome.APPROVED : CouncilOutcome.REJECTED, true, at,
                "tie broken by " + settings.prime() + " voting " + vote + ": " + tally));
    }

    /** The decision of a proposal still undecided at its deadline. */
    public CouncilDecision expire(ProposalState proposal, Set<String> active) {
        List<CastVote> votes = proposal.getVotes();
        int needed = needed(active.size());
        String reason = votes.size() < needed
                ? "no quorum by the deadline: " + votes.size() + " of " + needed + " votes"
                : "tied " + count(votes, Vote.YES) + "-" + count(votes, Vote.NO) + " at the deadline and "
                        + settings.prime() + " did not break the tie";
        return decision(proposal, CouncilOutcome.EXPIRED, false, proposal.getDeadline(), reason);
    }

    /** A proposal that reached the council after its deadline: expired without counting anything. */
    public CouncilDecision expiredOnArrival(ProposalState proposal, Instant clock) {
        return decision(proposal, CouncilOutcome.EXPIRED, false, proposal.getDeadline(),
                "arrived after its deadline (the council's clock was at " + clock + ")");
    }

    private static CouncilDecision decision(ProposalState proposal, CouncilOutcome outcome, boolean tieBroken,
                                            Instant at, String reason) {
        List<CastVote> votes = proposal.getVotes();
        return CouncilDecision.newBuilder()
                .setProposalId(proposal.getProposalId())
                .setCouncilId(proposal.getCouncilId())
                .setOutcome(outcome)
                .setYes((int) count(votes, Vote.YES))
                .setNo((int) count(votes, Vote.NO))
                .setAbstain((int) count(votes, Vote.ABSTAIN))
                .setVoters(votes.stream().map(CastVote::getRole).toList())
                .setTieBrokenByPrime(tieBroken)
                .setReason(reason)
                .setTimestamp(at)
                .setProposer(proposal.getProposer())
                .setSessionId(proposal.getSessionId())
                .setProposalDigest(Sha256.hex(proposal.getContent()))
                .build();
    }

    static long count(List<CastVote> votes, Vote kind) {
        return votes.stream().filter(vote -> vote.getVote() == kind).count();
    }
}
