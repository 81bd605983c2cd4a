package io.cognitionstreams.council;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.cognitionstreams.schema.CastVote;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilState;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.Vote;

/**
 * A council's state as text for {@code cognition council}: roles with their last heartbeat and status, open
 * proposals with their tallies, and votes still waiting for their proposal. Statuses are as of the council's
 * clock (the latest message it has handled), not the reader's wall clock.
 */
public final class CouncilView {

    private CouncilView() {
    }

    /** @param state empty for a council the council has not written a state for (never heard of, or not yet) */
    public static String render(String council, Optional<CouncilState> state) {
        return render(council, state.map(CouncilState::getClock), state.map(CouncilState::getRoles).orElse(List.of()),
                state.map(CouncilState::getProposals).orElse(List.of()),
                state.map(CouncilState::getHeldVotes).orElse(List.of()));
    }

    /** What `cognition council pending` prints: each open proposal, its votes, and what it asks, indented. */
    public static String pending(String council, List<ProposalState> proposals) {
        StringBuilder text = new StringBuilder();
        text.append("council ").append(council).append(": ").append(proposals.size())
                .append(proposals.size() == 1 ? " proposal waits" : " proposals wait").append('\n');
        for (ProposalState proposal : proposals) {
            String votes = proposal.getVotes().isEmpty() ? "no vote yet" : proposal.getVotes().stream()
                    .map(vote -> vote.getRole() + "=" + vote.getVote()).collect(Collectors.joining(" "));
            text.append('\n').append(proposal.getProposalId()).append("  from ").append(proposal.getProposer())
                    .append(", deadline ").append(proposal.getDeadline()).append(", ").append(votes).append('\n');
            proposal.getContent().lines().forEach(line -> text.append("  ").append(line).append('\n'));
        }
        return text.toString();
    }

    static String render(String council, Optional<Instant> clock, List<RoleStatus> roles,
                         List<ProposalState> proposals, List<CouncilMessage> pendingVotes) {
        StringBuilder text = new StringBuilder();
        text.append("council ").append(council).append(", clock ")
                .append(clock.map(Instant::toString).orElse("(no message yet)")).append('\n');
        text.append(String.format("%-12s %-9s %-24s %s%n", "ROLE", "STATUS", "LAST HEARTBEAT", "SINCE"));
        for (RoleStatus role : roles) {
            text.append(String.format("%-12s %-9s %-24s %s%n", role.getRole(), role.getStatus(),
                    role.getLastHeartbeat(), role.getTimestamp()));
        }
        if (roles.isEmpty()) {
            text.append("(no role heard from)\n");
        }
        text.append('\n').append(String.format("%-20s %-12s %-24s %4s %4s %8s  %s%n", "OPEN PROPOSAL", "PROPOSER",
                "DEADLINE", "YES", "NO", "ABSTAIN", "VOTES"));
        for (ProposalState proposal : proposals) {
            List<CastVote> votes = proposal.getVotes();
            String cast = votes.stream().map(vote -> vote.getRole() + "=" + vote.getVote())
                    .collect(Collectors.joining(" "));
            text.append(String.format("%-20s %-12s %-24s %4d %4d %8d  %s%n", proposal.getProposalId(),
                    proposal.getProposer(), proposal.getDeadline(), ProposalTally.count(votes, Vote.YES),
                    ProposalTally.count(votes, Vote.NO), ProposalTally.count(votes, Vote.ABSTAIN), cast));
        }
        if (proposals.isEmpty()) {
            text.append("(no open proposal)\n");
        }
        if (!pendingVotes.isEmpty()) {
            text.append("\nVOTES WAITING FOR THEIR PROPOSAL\n");
            Map<String, String> byProposal = new TreeMap<>();
            for (CouncilMessage vote : pendingVotes) {
                byProposal.merge(vote.getProposalId(), vote.getSender() + "=" + vote.getVote(),
                        (earlier, later) -> earlier + " " + later);
            }
            byProposal.forEach((proposal, votes) -> text.append(String.format("%-20s %s%n", proposal, votes)));
        }
        return text.toString();
    }
}
