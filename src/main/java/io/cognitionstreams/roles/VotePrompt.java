package io.cognitionstreams.roles;

import java.util.List;

import io.cognitionstreams.assembly.IdentityDefaults;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * What a council role's model is asked about a proposal: who it is and the identity's core rules (system), then the
 * proposal itself (user), cut to a token budget so a huge proposal cannot blow the role's context. The user message
 * starts {@code COUNCIL VOTE as <role>}, which the replay model's role transcripts match.
 */
public final class VotePrompt {

    private VotePrompt() {
    }

    public static List<PromptMessage> of(String role, CouncilMessage proposal, TokenCounter tokens, int budget) {
        String system = "You are " + role + ", a voting role of council " + proposal.getCouncilId() + " of "
                + "Cognition Streams. The council decides whether a proposed action may run; a tool call waits "
                + "for its vote.\n" + IdentityDefaults.TEXT + "\n\nVote no on anything destructive, irreversible "
                + "or outside the skill's purpose unless the proposal shows why it is safe; abstain when you cannot "
                + "tell. Answer in exactly three lines:\nVOTE: yes|no|abstain\nCONFIDENCE: a number from 0 to 1\n"
                + "REASON: one line";
        String header = "COUNCIL VOTE as " + role + " on proposal " + proposal.getMsgId() + " (council "
                + proposal.getCouncilId() + ", risk " + proposal.getRiskLevel() + ", from " + proposal.getSender()
                + ")\n\n";
        int room = Math.max(0, budget - tokens.count(system) - tokens.count(header));
        String content = proposal.getContent();
        String kept = tokens.prefix(content, room);
        if (kept.length() < content.length()) {
            kept = kept + "\n[... cut to the vote's token budget]";
        }
        return List.of(new PromptMessage("system", system), new PromptMessage("user", header + kept));
    }
}
