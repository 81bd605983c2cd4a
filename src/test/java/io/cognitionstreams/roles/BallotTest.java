package io.cognitionstreams.roles;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.tokens.Tokenizers;

class BallotTest {

    @Test
    void aVoteIsReadFromItsThreeLinesInAnyOrderAndCase() {
        Ballot ballot = Ballot.parse("Let me think.\nreason: it only reads the disk usage\n**Vote**: NO\n"
                + "Confidence: 0.85\n");
        assertThat(ballot.vote()).isEqualTo(Vote.NO);
        assertThat(ballot.confidence()).contains(0.85);
        assertThat(ballot.reason()).isEqualTo("it only reads the disk usage");
    }

    @Test
    void anAnswerThatIsNoVoteIsAnAbstainThatSaysSo() {
        Ballot ballot = Ballot.parse("I would rather not say.\nMaybe yes.");
        assertThat(ballot.vote()).isEqualTo(Vote.ABSTAIN);
        assertThat(ballot.confidence()).isEmpty();
        assertThat(ballot.reason()).isEqualTo("abstained: the answer could not be read as a vote (no line VOTE: "
                + "yes|no|abstain): I would rather not say. Maybe yes.");
        assertThat(Ballot.parse("").reason()).endsWith("(empty)");
    }

    @Test
    void aConfidenceOutsideZeroToOneIsNoneAndAReasonStaysOneShortLine() {
        Ballot ballot = Ballot.parse("VOTE: yes\nCONFIDENCE: 7\nREASON: " + "x".repeat(10_000));
        assertThat(ballot.confidence()).isEmpty();
        assertThat(ballot.reason()).hasSize(Ballot.MAX_REASON_CHARS).endsWith("…");
        assertThat(Ballot.parse("VOTE: yes").reason()).isEqualTo("(no reason given)");
    }

    @Test
    void theVotePromptKeepsToItsTokenBudgetAndNamesTheRoleFirst() {
        CouncilMessage proposal = CouncilMessage.newBuilder().setMsgId("call-1").setCouncilId("default")
                .setTimestamp(Records.T0).setSender("gatekeeper").setRole("gatekeeper")
                .setType(CouncilMessageType.PROPOSAL).setRiskLevel(RiskLevel.MED)
                .setContent("tool: shell.run\n" + "word ".repeat(20_000)).build();
        var tokens = new Tokenizers().forModel("gpt-4o");

        List<PromptMessage> prompt = VotePrompt.of("lite", proposal, tokens, 600);

        assertThat(prompt.get(1).content()).startsWith("COUNCIL VOTE as lite on proposal call-1 (council default, "
                + "risk MED, from gatekeeper)").endsWith("[... cut to the vote's token budget]");
        int total = prompt.stream().mapToInt(message -> tokens.count(message.content())).sum();
        assertThat(total).isLessThanOrEqualTo(600 + 20);
        assertThat(prompt.get(0).content()).contains("Never execute shell commands without reflection and approval")
                .contains("VOTE: yes|no|abstain");
        assertThat(Optional.of(prompt.get(1).content())).isPresent();
    }
}
