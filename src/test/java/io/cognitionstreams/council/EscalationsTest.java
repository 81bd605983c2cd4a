package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.at;
import static io.cognitionstreams.council.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.TimeTravel;

class EscalationsTest {

    @Test
    void highRiskAndLowConfidenceTriggerAndTheRestDoesNot() {
        assertThat(Escalations.trigger(info().setRiskLevel(RiskLevel.HIGH).build())).contains("risk_level high");
        assertThat(Escalations.trigger(info().setConfidence(0.29).build())).contains("confidence 0.29 below 0.3");
        assertThat(Escalations.trigger(info().setRiskLevel(RiskLevel.HIGH).setConfidence(0.1).build()))
                .contains("risk_level high and confidence 0.1 below 0.3");

        assertThat(Escalations.trigger(info().setConfidence(0.3).build())).isEmpty();
        assertThat(Escalations.trigger(info().setRiskLevel(RiskLevel.MED).build())).isEmpty();
        assertThat(Escalations.trigger(info().build())).as("no confidence given").isEmpty();
    }

    @Test
    void anEscalationIsNeverEscalatedAgain() {
        CouncilMessage escalation = message("e1", "router", CouncilMessageType.ESCALATION, 0)
                .setRiskLevel(RiskLevel.HIGH).setConfidence(0.0).setContent("3 consecutive INTERRUPTs").build();

        assertThat(Escalations.trigger(escalation)).isEmpty();
    }

    @Test
    void theCouncilsEscalationPointsAtItsTriggerAndKeepsItsSession() {
        CouncilMessage trigger = info().setRiskLevel(RiskLevel.HIGH).setSessionId("s1").setContent("rm -rf /").build();

        CouncilMessage escalation = Escalations.raise(trigger, "risk_level high", at(5));

        assertThat(escalation.getMsgId()).isEqualTo("esc-i1");
        assertThat(escalation.getParentId()).isEqualTo("i1");
        assertThat(escalation.getSender()).isEqualTo(CouncilSettings.COUNCIL_SENDER);
        assertThat(escalation.getType()).isEqualTo(CouncilMessageType.ESCALATION);
        assertThat(escalation.getRiskLevel()).isEqualTo(RiskLevel.HIGH);
        assertThat(escalation.getSessionId()).isEqualTo("s1");
        assertThat(escalation.getContent()).isEqualTo("**INFO i1 from lite** (member): risk_level high.\n\nrm -rf /");

        RoutedBlock block = Escalations.chatBlock(escalation);
        assertThat(block.getChannel()).isEqualTo("council_chat");
        assertThat(block.getMarker()).isEqualTo(Marker.ESCALATION);
        assertThat(block.getSessionId()).isEqualTo("s1");
        assertThat(block.getBlockId()).isEqualTo("esc-i1#0");
        assertThat(block.getText()).startsWith("ESCALATION for Prime from council (council default, risk HIGH): ");
    }

    @Test
    void anEscalationOfAReplayedTurnShowsAsABlockOfThatReplay() {
        CouncilMessage escalation = info().setType(CouncilMessageType.ESCALATION).setSessionId("s1")
                .setParentId("pk9").setTimeTravel(TimeTravel.REPLAY).setOriginSessionId("s1").build();

        RoutedBlock block = Escalations.chatBlock(escalation);

        assertThat(block.getTimeTravel()).isEqualTo(TimeTravel.REPLAY);
        assertThat(block.getOriginSessionId()).isEqualTo("s1");
        assertThat(block.getParentId()).isEqualTo("pk9");
    }

    @Test
    void withoutASessionTheBlockIsKeyedByTheCouncil() {
        CouncilMessage escalation = Escalations.raise(info().setConfidence(0.1).build(), "low", at(1));

        assertThat(Escalations.chatBlock(escalation).getSessionId()).isEqualTo(Messages.COUNCIL);
    }

    private static CouncilMessage.Builder info() {
        return message("i1", "lite", CouncilMessageType.INFO, 0);
    }
}
