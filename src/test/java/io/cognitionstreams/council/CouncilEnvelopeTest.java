package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.COUNCIL;
import static io.cognitionstreams.council.Messages.heartbeat;
import static io.cognitionstreams.council.Messages.message;
import static io.cognitionstreams.council.Messages.proposal;
import static io.cognitionstreams.council.Messages.vote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.serde.json.JsonAvro;

class CouncilEnvelopeTest {

    /** The wall clock the envelopes are checked at: a minute after the messages' T0. */
    private static final Instant NOW = Messages.at(60);

    private final CouncilSettings settings = CouncilSettings.defaults();

    @Test
    void everyKindOfValidMessagePasses() {
        assertThat(valid(heartbeat("prime", 0))).isNotNull();
        assertThat(valid(proposal("p1", "lite", 0).setProposalId("p1").build())).isNotNull();
        assertThat(valid(vote("p1", "codemind", Vote.ABSTAIN, 0))).isNotNull();
        assertThat(valid(message("i1", "lite", CouncilMessageType.INFO, 0).setConfidence(0.0).setParentId("p1")
                .setSessionId("s1").build())).isNotNull();
        assertThat(valid(message("e1", "router", CouncilMessageType.ESCALATION, 0).setContent("3 interrupts")
                .setRiskLevel(RiskLevel.HIGH).build())).isNotNull();
        assertThat(valid(message("t1", "council", CouncilMessageType.HEARTBEAT, 0).build())).isNotNull();
        assertThat(valid(message("a1", "autofix", CouncilMessageType.ESCALATION, 0)
                .setContent("VERIFY still fails after 2 retries").setRiskLevel(RiskLevel.HIGH).build())).isNotNull();
        assertThat(valid(message("l1", "assembly", CouncilMessageType.ESCALATION, 0)
                .setContent("session s1 took 3 turns on its own").setRiskLevel(RiskLevel.HIGH).build())).isNotNull();
    }

    static Stream<Arguments> broken() {
        return Stream.of(
                Arguments.of(message(" ", "lite", CouncilMessageType.INFO, 0), "msg_id is empty"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setCouncilId(""), "council_id is empty"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setCouncilId("a/b"),
                        "council_id 'a/b' contains '/'"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setCouncilId("other"),
                        "record key 'default' is not the council_id 'other'"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setParentId(""),
                        "parent_id is blank"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setTimestamp(Instant.EPOCH),
                        "timestamp 1970-01-01T00:00:00Z is not after the epoch"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setRole(""), "role is empty"),
                Arguments.of(message("m", "lite", CouncilMessageType.HEARTBEAT, 0).setTimestamp(NOW.plus(Duration.ofHours(2))),
                        "is PT2H ahead of the clock (" + NOW + "), more than the PT30S allowed"),
                Arguments.of(message("m", "lite", CouncilMessageType.HEARTBEAT, 0)
                                .setTimestamp(Instant.parse("9999-12-31T23:59:59Z")),
                        "timestamp 9999-12-31T23:59:59Z is"),
                Arguments.of(message("m", "gpt", CouncilMessageType.INFO, 0),
                        "sender 'gpt' is not a council role [prime, lite, codemind], 'router', 'autofix', "
                                + "'assembly', 'gatekeeper' or 'council'"),
                Arguments.of(message("m", "autofix", CouncilMessageType.INFO, 0),
                        "sender 'autofix' is not a council role and cannot send INFO (only [ESCALATION])"),
                Arguments.of(message("m", "assembly", CouncilMessageType.HEARTBEAT, 0),
                        "sender 'assembly' is not a council role and cannot send HEARTBEAT (only [ESCALATION])"),
                Arguments.of(message("m", "router", CouncilMessageType.VOTE, 0).setProposalId("p").setVote(Vote.YES),
                        "sender 'router' is not a council role and cannot send VOTE (only [ESCALATION, INFO])"),
                Arguments.of(message("m", "council", CouncilMessageType.PROPOSAL, 0).setContent("x"),
                        "sender 'council' is not a council role and cannot send PROPOSAL"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setConfidence(1.5),
                        "confidence 1.5 is outside 0..1"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setConfidence(Double.NaN),
                        "confidence NaN is outside 0..1"),
                Arguments.of(message("m", "lite", CouncilMessageType.INFO, 0).setRiskLevel(RiskLevel.UNKNOWN),
                        "risk_level is not low, med or high"),
                Arguments.of(message("m", "lite", CouncilMessageType.VOTE, 0).setVote(Vote.YES),
                        "proposal_id of a VOTE is empty"),
                Arguments.of(message("m", "lite", CouncilMessageType.VOTE, 0).setProposalId("p1"),
                        "a VOTE needs vote: yes, no or abstain"),
                Arguments.of(message("m", "lite", CouncilMessageType.HEARTBEAT, 0).setVote(Vote.NO),
                        "vote is set on a HEARTBEAT; only a VOTE carries one"),
                Arguments.of(proposal("p1", "lite", 0).setContent(" "), "content of a PROPOSAL is empty"),
                Arguments.of(proposal("p1", "lite", 0).setContent("y".repeat(CouncilEnvelope.MAX_CONTENT_CHARS + 1)),
                        "content has 65537 characters, over the limit of 65536"),
                Arguments.of(proposal("p1", "lite", 0).setProposalId("p2"),
                        "a PROPOSAL is identified by its msg_id 'p1'; its proposal_id 'p2' must be empty or the same"),
                Arguments.of(message("m", "prime", CouncilMessageType.ESCALATION, 0),
                        "content of an ESCALATION is empty"),
                Arguments.of(proposal("p1", "gatekeeper", 0).setSessionId(null),
                        "session_id of the gatekeeper's PROPOSAL is empty"));
    }

    @ParameterizedTest
    @MethodSource("broken")
    void aBrokenEnvelopeIsRefusedWithTheRuleItBreaks(CouncilMessage.Builder message, String reason) {
        assertThatThrownBy(() -> valid(message.build()))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining(reason);
    }

    @Test
    void aClockAheadByNoMoreThanTheSkewAndOneFarBehindArePassed() {
        assertThat(valid(heartbeat("lite", 90))).isNotNull();
        assertThat(valid(message("m", "lite", CouncilMessageType.HEARTBEAT, 0)
                .setTimestamp(Instant.parse("1971-01-01T00:00:00Z")).build())).isNotNull();
    }

    @Test
    void aTombstoneIsRefused() {
        assertThatThrownBy(() -> CouncilEnvelope.requireValid(COUNCIL, null, settings, NOW))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("tombstones");
    }

    @Test
    void theReadmesHeartbeatIsAValidEnvelopeForTheDefaultCouncil() throws IOException {
        String line = Files.readAllLines(Path.of("README.md")).stream()
                .filter(text -> text.startsWith("echo '{") && text.contains("\"type\":\"HEARTBEAT\""))
                .findFirst().orElseThrow();
        String json = line.substring(line.indexOf('\'') + 1, line.lastIndexOf('\''));

        CouncilMessage heartbeat = valid(JsonAvro.fromJson(json, CouncilMessage.class));

        assertThat(heartbeat.getCouncilId()).isEqualTo(COUNCIL);
        assertThat(heartbeat.getType()).isEqualTo(CouncilMessageType.HEARTBEAT);
    }

    private CouncilMessage valid(CouncilMessage message) {
        return CouncilEnvelope.requireValid(COUNCIL, message, settings, NOW);
    }
}
