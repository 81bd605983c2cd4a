package io.cognitionstreams.council;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topics.Channel;

/**
 * Escalation triggers of seed 003 section 8.4, and what an escalation looks like. The council raises an ESCALATION
 * message (sender {@code council}) on council.messages for Prime, and shows it on channel.council_chat. An
 * ESCALATION it reads is shown, never escalated again: that is what keeps escalations from looping.
 */
public final class Escalations {

    /** Below this confidence a message needs Prime's attention (seed 003 section 6, Refine stage). */
    public static final double LOW_CONFIDENCE = 0.3;
    /** role of the council's own escalations: the function it acts in when it raises one. */
    static final String ESCALATION_ROLE = "escalation";

    private Escalations() {
    }

    /** Why this message needs Prime's attention; empty when it does not. ESCALATIONs are shown, not raised. */
    public static Optional<String> trigger(CouncilMessage message) {
        if (message.getType() == CouncilMessageType.ESCALATION) {
            return Optional.empty();
        }
        List<String> reasons = new ArrayList<>();
        if (message.getRiskLevel() == RiskLevel.HIGH) {
            reasons.add("risk_level high");
        }
        if (message.getConfidence() != null && message.getConfidence() < LOW_CONFIDENCE) {
            reasons.add("confidence " + message.getConfidence() + " below " + LOW_CONFIDENCE);
        }
        return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join(" and ", reasons));
    }

    /** The escalation of a message that met a trigger; its id derives from the message's, so a replay repeats it. */
    public static CouncilMessage raise(CouncilMessage trigger, String reason, Instant at) {
        return escalation("esc-" + trigger.getMsgId(), trigger.getMsgId(), trigger.getCouncilId(),
                trigger.getSessionId(), trigger.getProposalId(), at,
                "**" + trigger.getType() + " " + trigger.getMsgId() + " from " + trigger.getSender() + "** ("
                        + trigger.getRole() + "): " + reason + ".\n\n" + trigger.getContent());
    }

    /** The escalation of a proposal the council could not decide for want of active roles. */
    public static CouncilMessage noQuorum(ProposalState proposal, String reason, Instant at) {
        return escalation("esc-no-quorum-" + proposal.getProposalId(), proposal.getProposalId(),
                proposal.getCouncilId(), proposal.getSessionId(), proposal.getProposalId(), at,
                "**proposal " + proposal.getProposalId() + " from " + proposal.getProposer()
                        + " cannot be decided**: " + reason + ".\n\n" + proposal.getContent());
    }

    private static CouncilMessage escalation(String id, String parent, String council, String session,
                                             String proposal, Instant at, String content) {
        return CouncilMessage.newBuilder()
                .setMsgId(id)
                .setParentId(parent)
                .setCouncilId(council)
                .setTimestamp(at)
                .setSender(CouncilSettings.COUNCIL_SENDER)
                .setRole(ESCALATION_ROLE)
                .setType(CouncilMessageType.ESCALATION)
                .setRiskLevel(RiskLevel.HIGH)
                .setContent(content)
                .setProposalId(proposal)
                .setSessionId(session)
                .build();
    }

    /**
     * An escalation as a block on channel.council_chat, keyed like every channel record by session: the
     * escalation's session when it names one, else the council id. No model output lies behind it, so packet_id
     * and request_id are empty and output_id is the escalation's msg_id.
     */
    public static RoutedBlock chatBlock(CouncilMessage escalation) {
        String session = escalation.getSessionId() != null ? escalation.getSessionId() : escalation.getCouncilId();
        return RoutedBlock.newBuilder()
                .setBlockId(escalation.getMsgId() + "#0")
                .setOutputId(escalation.getMsgId())
                .setPacketId("")
                .setParentId(escalation.getParentId())
                .setTimeTravel(escalation.getTimeTravel())
                .setOriginSessionId(escalation.getOriginSessionId())
                .setRequestId("")
                .setSessionId(session)
                .setMarker(Marker.ESCALATION)
                .setSequence(0)
                .setBlockCount(1)
                .setChannel(Channel.COUNCIL_CHAT.id())
                .setText("ESCALATION for Prime from " + escalation.getSender() + " (council "
                        + escalation.getCouncilId() + ", risk " + escalation.getRiskLevel() + "): "
                        + escalation.getContent())
                .setRedactions(Map.of())
                .setTimestamp(escalation.getTimestamp())
                .build();
    }
}
