package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.COUNCIL;
import static io.cognitionstreams.council.Messages.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.CastVote;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.Vote;

class ProposalTallyTest {

    private static final Set<String> ALL = Set.of("prime", "lite", "codemind");

    private final ProposalTally tally = new ProposalTally(CouncilSettings.defaults());

    @Test
    void oneVoteIsNoQuorumAndTwoAgreeingVotesDecide() {
        assertThat(tally.decide(proposal("lite", Vote.YES), ALL, at(1))).isEmpty();

        CouncilDecision approved = tally.decide(proposal("lite", Vote.YES, "codemind", Vote.YES), ALL, at(2))
                .orElseThrow();
        assertThat(approved.getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
        assertThat(approved.getYes()).isEqualTo(2);
        assertThat(approved.getVoters()).containsExactly("lite", "codemind");
        assertThat(approved.getTieBrokenByPrime()).isFalse();
        assertThat(approved.getTimestamp()).isEqualTo(at(2));
        assertThat(approved.getReason()).isEqualTo("majority: 2 yes, 0 no, 0 abstain; quorum 2 of 3 active roles");

        assertThat(tally.decide(proposal("lite", Vote.NO, "prime", Vote.NO), ALL, at(2)).orElseThrow()
                .getOutcome()).isEqualTo(CouncilOutcome.REJECTED);
    }

    @Test
    void abstainingCountsTowardQuorumButNotTowardTheMajority() {
        CouncilDecision decision = tally.decide(proposal("lite", Vote.YES, "codemind", Vote.ABSTAIN), ALL, at(2))
                .orElseThrow();

        assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
        assertThat(decision.getAbstain()).isEqualTo(1);
    }

    @Test
    void primeBreaksATieAndATieWithoutPrimesVoteWaits() {
        CouncilDecision broken = tally.decide(proposal("lite", Vote.NO, "prime", Vote.YES), ALL, at(2))
                .orElseThrow();
        assertThat(broken.getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
        assertThat(broken.getTieBrokenByPrime()).isTrue();
        assertThat(broken.getReason()).startsWith("tie broken by prime voting YES");

        assertThat(tally.decide(proposal("lite", Vote.NO, "codemind", Vote.YES), ALL, at(2))).isEmpty();
        assertThat(tally.decide(proposal("lite", Vote.NO, "codemind", Vote.YES, "prime", Vote.ABSTAIN), ALL, at(3)))
                .as("prime abstained: the tie stands").isEmpty();
        assertThat(tally.decide(proposal("lite", Vote.ABSTAIN, "codemind", Vote.ABSTAIN), ALL, at(3))).isEmpty();
    }

    @Test
    void fewerThanTwoActiveRolesIsNoQuorumWhateverTheVotes() {
        CouncilDecision decision = tally.decide(proposal("prime", Vote.YES, "lite", Vote.YES), Set.of("prime"),
                at(5)).orElseThrow();

        assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.NO_QUORUM);
        assertThat(decision.getReason()).isEqualTo("only 1 active role(s) [prime]: a decision needs 2");
    }

    @Test
    void aLargerQuorumIsReducedToTheActiveRolesButNeverBelowTwo() {
        ProposalTally four = new ProposalTally(new CouncilSettings(List.of("prime", "lite", "codemind", "critic"),
                "prime", 3, CouncilSettings.defaults().heartbeatTimeout(), CouncilSettings.defaults().proposalTtl(),
                CouncilSettings.defaults().tick(), CouncilSettings.DEFAULT_MAX_CLOCK_SKEW));
        assertThat(four.needed(4)).isEqualTo(3);
        assertThat(four.needed(3)).isEqualTo(3);
        assertThat(four.needed(2)).isEqualTo(2);
        assertThat(four.needed(1)).isEqualTo(2);

        ProposalState twoYes = proposal("lite", Vote.YES, "codemind", Vote.YES);
        assertThat(four.decide(twoYes, Set.of("prime", "lite", "codemind"), at(1))).isEmpty();
        assertThat(four.decide(twoYes, Set.of("lite", "codemind"), at(1))).map(CouncilDecision::getOutcome)
                .contains(CouncilOutcome.APPROVED);
    }

    @Test
    void expiringSaysWhetherQuorumOrPrimeWasMissing() {
        CouncilDecision short1 = tally.expire(proposal("lite", Vote.YES), ALL);
        assertThat(short1.getOutcome()).isEqualTo(CouncilOutcome.EXPIRED);
        assertThat(short1.getReason()).isEqualTo("no quorum by the deadline: 1 of 2 votes");
        assertThat(short1.getTimestamp()).as("expired at the deadline").isEqualTo(at(300));

        assertThat(tally.expire(proposal("lite", Vote.YES, "codemind", Vote.NO), ALL).getReason())
                .isEqualTo("tied 1-1 at the deadline and prime did not break the tie");
    }

    /** A proposal opened at T0 with a 300 s deadline and these (role, vote) pairs cast in order. */
    private static ProposalState proposal(Object... rolesAndVotes) {
        List<CastVote> votes = new ArrayList<>();
        for (int i = 0; i < rolesAndVotes.length; i += 2) {
            votes.add(CastVote.newBuilder().setRole((String) rolesAndVotes[i]).setVote((Vote) rolesAndVotes[i + 1])
                    .setMsgId("v" + i).setTimestamp(at(i)).build());
        }
        return ProposalState.newBuilder()
                .setProposalId("p1")
                .setCouncilId(COUNCIL)
                .setProposer("lite")
                .setContent("Deploy")
                .setOpenedAt(at(0))
                .setDeadline(at(300))
                .setVotes(votes)
                .build();
    }
}
