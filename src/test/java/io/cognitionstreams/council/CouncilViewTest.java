package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.COUNCIL;
import static io.cognitionstreams.council.Messages.at;
import static io.cognitionstreams.council.Messages.vote;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.CastVote;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.Vote;

class CouncilViewTest {

    @Test
    void showsRolesOpenProposalsWithTalliesAndWaitingVotes() {
        String view = CouncilView.render(COUNCIL, Optional.of(at(130)),
                List.of(role("codemind", RoleState.INACTIVE, 0, 90), role("lite", RoleState.ACTIVE, 120, 0),
                        role("prime", RoleState.ACTIVE, 121, 0)),
                List.of(ProposalState.newBuilder()
                        .setProposalId("p1").setCouncilId(COUNCIL).setProposer("lite").setContent("Deploy")
                        .setOpenedAt(at(100)).setDeadline(at(400))
                        .setVotes(List.of(CastVote.newBuilder().setRole("prime").setVote(Vote.YES).setMsgId("v1")
                                .setTimestamp(at(101)).build()))
                        .build()),
                List.of(vote("p2", "lite", Vote.NO, 125), vote("p2", "prime", Vote.ABSTAIN, 126)));

        assertThat(view).isEqualTo("""
                council default, clock 2026-11-22T10:02:10Z
                ROLE         STATUS    LAST HEARTBEAT           SINCE
                codemind     INACTIVE  2026-11-22T10:00:00Z     2026-11-22T10:01:30Z
                lite         ACTIVE    2026-11-22T10:02:00Z     2026-11-22T10:00:00Z
                prime        ACTIVE    2026-11-22T10:02:01Z     2026-11-22T10:00:00Z

                OPEN PROPOSAL        PROPOSER     DEADLINE                  YES   NO  ABSTAIN  VOTES
                p1                   lite         2026-11-22T10:06:40Z        1    0        0  prime=YES

                VOTES WAITING FOR THEIR PROPOSAL
                p2                   lite=NO prime=ABSTAIN
                """);
    }

    @Test
    void saysSoWhenThereIsNothingYet() {
        assertThat(CouncilView.render("quiet", Optional.empty(), List.of(), List.of(), List.of()))
                .contains("council quiet, clock (no message yet)", "(no role heard from)", "(no open proposal)")
                .doesNotContain("VOTES WAITING");
    }

    private static RoleStatus role(String name, RoleState state, double lastHeartbeat, double since) {
        return RoleStatus.newBuilder().setCouncilId(COUNCIL).setRole(name).setStatus(state)
                .setLastHeartbeat(at(lastHeartbeat)).setTimestamp(at(since)).build();
    }
}
