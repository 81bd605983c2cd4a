package io.cognitionstreams.council;

import java.time.Instant;

import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.testing.Records;

/** Valid council envelopes at T0 + some seconds; each test changes only what it is about. */
public final class Messages {

    public static final String COUNCIL = "default";

    private Messages() {
    }

    public static Instant at(double seconds) {
        return Records.T0.plusMillis(Math.round(seconds * 1000));
    }

    public static CouncilMessage.Builder message(String id, String sender, CouncilMessageType type, double seconds) {
        return CouncilMessage.newBuilder()
                .setMsgId(id)
                .setCouncilId(COUNCIL)
                .setTimestamp(at(seconds))
                .setSender(sender)
                .setRole("member")
                .setType(type)
                .setRiskLevel(RiskLevel.LOW)
                .setContent("");
    }

    public static CouncilMessage heartbeat(String sender, double seconds) {
        return message(sender + "-hb-" + seconds, sender, CouncilMessageType.HEARTBEAT, seconds).build();
    }

    public static CouncilMessage.Builder proposal(String id, String sender, double seconds) {
        return message(id, sender, CouncilMessageType.PROPOSAL, seconds).setRole("planner")
                .setContent("Deploy release 2.4.0 tonight");
    }

    public static CouncilMessage vote(String proposal, String sender, Vote vote, double seconds) {
        return message("vote-" + proposal + "-" + sender + "-" + seconds, sender, CouncilMessageType.VOTE, seconds)
                .setProposalId(proposal).setVote(vote).build();
    }
}
