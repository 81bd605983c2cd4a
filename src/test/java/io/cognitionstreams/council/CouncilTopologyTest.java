package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.COUNCIL;
import static io.cognitionstreams.council.Messages.at;
import static io.cognitionstreams.council.Messages.heartbeat;
import static io.cognitionstreams.council.Messages.message;
import static io.cognitionstreams.council.Messages.proposal;
import static io.cognitionstreams.council.Messages.vote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.CouncilState;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * Scripted council sessions on a TopologyTestDriver whose wall clock starts at T0, the time of the first message.
 * Time moves by message timestamps and, where a test says so, by the driver's wall clock.
 */
class CouncilTopologyTest {

    private static final String[] ALL = {"prime", "lite", "codemind"};

    @TempDir
    Path stateDir;

    private final Topics topics = Drivers.topics();
    private final List<TopologyTestDriver> drivers = new ArrayList<>();
    private Outputs out;

    @AfterEach
    void stop() {
        drivers.forEach(TopologyTestDriver::close);
    }

    @Test
    void aRoleIsInactiveAfterMoreThan90sWithoutAHeartbeatAndActiveAgainOnItsNext() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        for (int s = 30; s <= 90; s += 30) {
            heartbeats(s, "prime", "lite");
        }
        assertThat(out.storedRoles()).as("exactly 90 s is not more than 90 s").extracting(RoleStatus::getStatus)
                .containsOnly(RoleState.ACTIVE);

        out.send(heartbeat("prime", 90.5));
        out.send(heartbeat("codemind", 100));

        assertThat(out.roleChanges()).extracting(RoleStatus::getRole, RoleStatus::getStatus, RoleStatus::getTimestamp)
                .containsExactly(
                        tuple("prime", RoleState.ACTIVE, at(0)),
                        tuple("lite", RoleState.ACTIVE, at(0)),
                        tuple("codemind", RoleState.ACTIVE, at(0)),
                        tuple("codemind", RoleState.INACTIVE, at(90)),
                        tuple("codemind", RoleState.ACTIVE, at(100)));
        KeyValueStore<String, RoleStatus> stored = out.store(CouncilTopology.ROLES_STORE);
        assertThat(stored.get(COUNCIL + "/codemind").getLastHeartbeat()).isEqualTo(at(100));
        assertThat(out.store(CouncilTopology.CLOCK_STORE).get(COUNCIL)).isEqualTo(at(100).toEpochMilli());
    }

    @Test
    void theWallClockFiresTimeoutsWhileNoMessageArrivesThroughATickOnTheTopic() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.roleChanges();

        out.advanceWallClockTo(90);
        assertThat(out.written()).as("nothing is due before 90 s have passed").isEmpty();
        assertThat(out.roleChanges()).isEmpty();

        out.advanceWallClockTo(95);
        assertThat(out.written()).singleElement().satisfies(tick -> {
            assertThat(tick.getSender()).isEqualTo(CouncilSettings.COUNCIL_SENDER);
            assertThat(tick.getType()).isEqualTo(CouncilMessageType.HEARTBEAT);
            assertThat(tick.getTimestamp()).isEqualTo(at(95));
        });
        assertThat(out.roleChanges()).extracting(RoleStatus::getRole, RoleStatus::getStatus, RoleStatus::getTimestamp)
                .containsExactly(tuple("codemind", RoleState.INACTIVE, at(90)),
                        tuple("lite", RoleState.INACTIVE, at(90)),
                        tuple("prime", RoleState.INACTIVE, at(90)));

        out.advanceWallClockTo(200);
        assertThat(out.written()).as("no deadline left: no more ticks").isEmpty();
    }

    @Test
    void eachChangedCouncilsStateIsPublishedOnceATickForCognitionCouncil() {
        out = start(CouncilSettings.defaults());
        out.send(heartbeat("codemind", 0));
        for (int beat = 0; beat < 100; beat++) {
            out.send(heartbeat("prime", beat / 10.0));
        }
        // Two roles alive there, so the proposal can reach a quorum and stays open.
        out.send(CouncilMessage.newBuilder(heartbeat("lite", 10)).setCouncilId("other").build());
        out.send(CouncilMessage.newBuilder(heartbeat("prime", 10)).setCouncilId("other").build());
        out.send(proposal("p1", "lite", 10).setCouncilId("other").build());
        out.send(vote("p9", "codemind", Vote.YES, 10));
        assertThat(out.states()).as("nothing before the tick").isEmpty();

        out.advanceWallClockTo(5); // the default tick
        List<TestRecord<String, CouncilState>> states = out.states();
        assertThat(states).as("one record per changed council, however many messages")
                .extracting(TestRecord::key).containsExactly(COUNCIL, "other");
        CouncilState council = states.get(0).value();
        assertThat(council.getClock()).isEqualTo(at(10));
        assertThat(council.getRoles()).extracting(RoleStatus::getRole, RoleStatus::getLastHeartbeat)
                .containsExactly(tuple("codemind", at(0)), tuple("prime", at(9.9)));
        assertThat(council.getHeldVotes()).extracting(CouncilMessage::getProposalId).containsExactly("p9");
        assertThat(states.get(1).value().getProposals()).extracting(ProposalState::getProposalId)
                .containsExactly("p1");
        assertThat(CouncilView.render(COUNCIL, java.util.Optional.of(council))).containsPattern("prime +ACTIVE")
                .contains("p9", "codemind=YES");

        out.advanceWallClockTo(15);
        assertThat(out.states()).as("nothing changed since").isEmpty();
    }

    @Test
    void twoRolesDecideByMajorityOnceAndNeitherALateVoteNorAResentProposalDecidesAgain() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.send(proposal("p1", "lite", 1).build());
        out.send(vote("p1", "prime", Vote.YES, 2));
        assertThat(out.decisions()).as("one vote is no quorum").isEmpty();
        assertThat(out.store(CouncilTopology.PROPOSALS_STORE).get(COUNCIL + "/p1")).isNotNull();

        out.send(vote("p1", "lite", Vote.YES, 3));
        out.send(vote("p1", "codemind", Vote.NO, 4));
        out.send(proposal("p1", "prime", 5).setContent("another plan").build());

        assertThat(out.decisions()).singleElement().satisfies(decision -> {
            assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
            assertThat(decision.getVoters()).containsExactly("prime", "lite");
            assertThat(decision.getYes()).isEqualTo(2);
            assertThat(decision.getTimestamp()).isEqualTo(at(3));
        });
        assertThat(out.decisionsBySession()).as("no call waits for a role's proposal").isEmpty();
        assertThat(out.store(CouncilTopology.PROPOSALS_STORE).get(COUNCIL + "/p1")).isNull();
        assertThat(out.store(CouncilTopology.DECIDED_STORE).get(COUNCIL + "/p1")).isNotNull();
        assertThat(out.deadLetters()).extracting(DeadLetter::getReason).as("the late vote is not an error")
                .containsExactly("proposal p1 was already made in council default: a proposal's msg_id is its id "
                        + "and must be unique");
    }

    @Test
    void aTieGoesToPrimesVoteAndWaitsForPrimeWhenPrimeHasNotVoted() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.send(proposal("p1", "lite", 1).build());
        out.send(vote("p1", "lite", Vote.NO, 2));
        out.send(vote("p1", "prime", Vote.YES, 3));
        out.send(proposal("p2", "lite", 4).build());
        out.send(vote("p2", "lite", Vote.YES, 5));
        out.send(vote("p2", "codemind", Vote.NO, 6));
        assertThat(out.store(CouncilTopology.PROPOSALS_STORE).get(COUNCIL + "/p2")).as("tied: waits for prime")
                .isNotNull();
        out.send(vote("p2", "prime", Vote.NO, 7));

        assertThat(out.decisions()).extracting(CouncilDecision::getProposalId, CouncilDecision::getOutcome,
                        CouncilDecision::getYes, CouncilDecision::getNo, CouncilDecision::getTieBrokenByPrime)
                .containsExactly(tuple("p1", CouncilOutcome.APPROVED, 1, 1, true),
                        tuple("p2", CouncilOutcome.REJECTED, 1, 2, false));
    }

    @Test
    void abstainingCountsTowardQuorumButNotTheMajority() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.send(proposal("p1", "lite", 1).build());
        out.send(vote("p1", "lite", Vote.YES, 2));
        out.send(vote("p1", "codemind", Vote.ABSTAIN, 3));

        assertThat(out.decisions()).extracting(CouncilDecision::getOutcome, CouncilDecision::getYes,
                CouncilDecision::getAbstain).containsExactly(tuple(CouncilOutcome.APPROVED, 1, 1));
    }

    @Test
    void aRolesSecondVoteIsDeadLetteredAndItsFirstCounts() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.send(proposal("p1", "lite", 1).build());
        out.send(vote("p1", "lite", Vote.YES, 2));
        out.send(vote("p1", "lite", Vote.NO, 3));
        out.send(vote("p1", "prime", Vote.NO, 4));

        assertThat(out.deadLetters()).singleElement().satisfies(letter -> {
            assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
            assertThat(letter.getReason()).isEqualTo("lite already voted YES on p1 (vote-p1-lite-2.0); votes are "
                    + "final, the first one counts");
        });
        assertThat(out.decisions()).extracting(CouncilDecision::getOutcome, CouncilDecision::getYes,
                CouncilDecision::getNo, CouncilDecision::getTieBrokenByPrime)
                .containsExactly(tuple(CouncilOutcome.REJECTED, 1, 1, true));
    }

    @Test
    void votesThatArriveBeforeTheirProposalAreHeldAndCountedInTheOrderCast() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.send(vote("p1", "prime", Vote.NO, 2));
        out.send(vote("p1", "lite", Vote.YES, 1));
        out.send(vote("p1", "lite", Vote.NO, 2.5));
        assertThat(out.deadLetters()).extracting(DeadLetter::getReason)
                .containsExactly("lite already voted YES on p1 (vote-p1-lite-1.0); votes are final, the first one "
                        + "counts");
        assertThat(out.store(CouncilTopology.PENDING_VOTES_STORE).get(COUNCIL + "/p1/prime")).isNotNull();
        assertThat(out.decisions()).isEmpty();

        out.send(proposal("p1", "codemind", 3).build());

        assertThat(out.decisions()).singleElement().satisfies(decision -> {
            assertThat(decision.getVoters()).as("in the order cast").containsExactly("lite", "prime");
            assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.REJECTED);
            assertThat(decision.getTieBrokenByPrime()).isTrue();
        });
        assertThat(out.store(CouncilTopology.PENDING_VOTES_STORE).get(COUNCIL + "/p1/prime")).isNull();
        assertThat(out.store(CouncilTopology.PENDING_VOTES_STORE).get(COUNCIL + "/p1/lite")).isNull();
    }

    @Test
    void aProposalThatCannotReachQuorumInTimeExpiresWithARecordSayingSo() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.send(proposal("p1", "lite", 0).build());
        out.send(vote("p1", "lite", Vote.YES, 10));
        for (int s = 60; s <= 300; s += 60) {
            heartbeats(s, ALL);
        }
        assertThat(out.decisions()).isEmpty();

        out.send(heartbeat("prime", 300.5));
        out.send(vote("p1", "prime", Vote.YES, 301));

        assertThat(out.decisions()).singleElement().satisfies(decision -> {
            assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.EXPIRED);
            assertThat(decision.getTimestamp()).isEqualTo(at(300));
            assertThat(decision.getReason()).isEqualTo("no quorum by the deadline: 1 of 2 votes");
        });
        assertThat(out.deadLetters()).as("a vote after the decision is simply late").isEmpty();
    }

    @Test
    void aTiePrimeNeverBreaksExpiresOnTheWallClock() {
        out = start(CouncilSettings.defaults().withTimes(Duration.ofSeconds(90), Duration.ofSeconds(60),
                Duration.ofSeconds(5)));
        heartbeats(0, ALL);
        out.send(proposal("p1", "lite", 1).build());
        out.send(vote("p1", "lite", Vote.YES, 2));
        out.send(vote("p1", "codemind", Vote.NO, 3));
        out.send(vote("p1", "prime", Vote.ABSTAIN, 4));

        out.advanceWallClockTo(60);
        assertThat(out.decisions()).isEmpty();
        out.advanceWallClockTo(65);

        assertThat(out.decisions()).singleElement().satisfies(decision -> {
            assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.EXPIRED);
            assertThat(decision.getTimestamp()).isEqualTo(at(61));
            assertThat(decision.getReason()).isEqualTo("tied 1-1 at the deadline and prime did not break the tie");
        });
    }

    @Test
    void aVoteFromAnInactiveRoleIsDeadLetteredAndTheActiveTwoStillDecide() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        heartbeats(60, "prime", "lite");
        out.send(proposal("p1", "lite", 95).build());
        out.send(vote("p1", "codemind", Vote.NO, 96));
        out.send(vote("p1", "prime", Vote.YES, 97));
        out.send(vote("p1", "lite", Vote.YES, 98));

        assertThat(out.deadLetters()).extracting(DeadLetter::getReason).containsExactly("role codemind is inactive "
                + "(last heartbeat " + at(0) + "), so its vote on p1 does not count: a role votes again after its "
                + "next heartbeat");
        assertThat(out.decisions()).extracting(CouncilDecision::getOutcome, CouncilDecision::getReason)
                .containsExactly(tuple(CouncilOutcome.APPROVED,
                        "majority: 2 yes, 0 no, 0 abstain; quorum 2 of 2 active roles"));
    }

    @Test
    void aLargerQuorumShrinksWithTheActiveRolesAndTheTimeoutItselfDecides() {
        out = start(new CouncilSettings(List.of("prime", "lite", "codemind", "critic"), "prime", 3,
                Duration.ofSeconds(90), Duration.ofMinutes(5), Duration.ofSeconds(5),
                CouncilSettings.DEFAULT_MAX_CLOCK_SKEW));
        heartbeats(0, "prime", "lite", "codemind", "critic");
        heartbeats(60, "prime", "lite");
        out.send(proposal("p1", "lite", 61).build());
        out.send(vote("p1", "lite", Vote.YES, 62));
        out.send(vote("p1", "prime", Vote.YES, 63));
        assertThat(out.decisions()).as("3 of 4 active roles needed").isEmpty();

        out.send(heartbeat("prime", 95));

        assertThat(out.decisions()).singleElement().satisfies(decision -> {
            assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
            assertThat(decision.getTimestamp()).isEqualTo(at(90));
            assertThat(decision.getReason()).endsWith("quorum 2 of 2 active roles");
        });
    }

    @Test
    void fewerThanTwoActiveRolesMeansNoDecisionAndAnEscalation() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        heartbeats(60, "prime");
        out.send(proposal("p1", "prime", 61).setSessionId("s1").build());
        out.send(vote("p1", "prime", Vote.YES, 62));
        out.send(heartbeat("prime", 95));
        out.send(proposal("p2", "prime", 100).build());

        assertThat(out.decisions()).extracting(CouncilDecision::getProposalId, CouncilDecision::getOutcome,
                CouncilDecision::getTimestamp, CouncilDecision::getReason)
                .containsExactly(
                        tuple("p1", CouncilOutcome.NO_QUORUM, at(90),
                                "only 1 active role(s) [prime]: a decision needs 2"),
                        tuple("p2", CouncilOutcome.NO_QUORUM, at(100),
                                "only 1 active role(s) [prime]: a decision needs 2"));
        List<CouncilMessage> escalations = out.written();
        assertThat(escalations).extracting(CouncilMessage::getMsgId, CouncilMessage::getType,
                        CouncilMessage::getSender, CouncilMessage::getProposalId)
                .containsExactly(
                        tuple("esc-no-quorum-p1", CouncilMessageType.ESCALATION, "council", "p1"),
                        tuple("esc-no-quorum-p2", CouncilMessageType.ESCALATION, "council", "p2"));
        assertThat(out.chat()).as("shown once each, though the council reads its own escalations back")
                .extracting(RoutedBlock::getSessionId, RoutedBlock::getOutputId)
                .containsExactly(tuple("s1", "esc-no-quorum-p1"), tuple(COUNCIL, "esc-no-quorum-p2"));
    }

    @Test
    void highRiskAndLowConfidenceRaiseAnEscalationForPrimeOnCouncilChat() {
        out = start(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.send(message("i1", "lite", CouncilMessageType.INFO, 1).setRiskLevel(RiskLevel.HIGH).setSessionId("s1")
                .setContent("about to drop the production table").build());
        out.send(proposal("p1", "codemind", 2).setConfidence(0.2).build());
        out.send(message("i2", "lite", CouncilMessageType.INFO, 3).setConfidence(0.3).build());

        assertThat(out.written()).extracting(CouncilMessage::getMsgId, CouncilMessage::getParentId,
                        CouncilMessage::getRiskLevel, CouncilMessage::getSessionId)
                .containsExactly(tuple("esc-i1", "i1", RiskLevel.HIGH, "s1"),
                        tuple("esc-p1", "p1", RiskLevel.HIGH, null));
        assertThat(out.chat()).extracting(RoutedBlock::getSessionId, RoutedBlock::getMarker, RoutedBlock::getText)
                .containsExactly(
                        tuple("s1", Marker.ESCALATION, "ESCALATION for Prime from council (council default, risk "
                                + "HIGH): **INFO i1 from lite** (member): risk_level high.\n\n"
                                + "about to drop the production table"),
                        tuple(COUNCIL, Marker.ESCALATION, "ESCALATION for Prime from council (council default, "
                                + "risk HIGH): **PROPOSAL p1 from codemind** (planner): confidence 0.2 below 0.3."
                                + "\n\nDeploy release 2.4.0 tonight"));
        assertThat(out.store(CouncilTopology.PROPOSALS_STORE).get(COUNCIL + "/p1"))
                .as("an escalated proposal is still put to the vote").isNotNull();
    }

    @Test
    void anEscalationFromRoutingIsShownOnCouncilChatAndNotEscalatedAgain() {
        out = start(CouncilSettings.defaults());
        out.send(message("s9-interrupts-3", "router", CouncilMessageType.ESCALATION, 1).setRole("observer")
                .setRiskLevel(RiskLevel.HIGH).setSessionId("s9")
                .setContent("3 consecutive INTERRUPT blocks in session s9").build());

        assertThat(out.written()).isEmpty();
        assertThat(out.chat()).singleElement().satisfies(block -> {
            assertThat(block.getSessionId()).isEqualTo("s9");
            assertThat(block.getChannel()).isEqualTo(Channel.COUNCIL_CHAT.id());
            assertThat(block.getText()).isEqualTo("ESCALATION for Prime from router (council default, risk HIGH): "
                    + "3 consecutive INTERRUPT blocks in session s9");
        });
    }

    @Test
    void whatTheCouncilShowsOnCouncilChatIsScrubbed() {
        out = start(CouncilSettings.defaults());
        out.send(message("leak", "router", CouncilMessageType.ESCALATION, 1).setRole("observer")
                .setRiskLevel(RiskLevel.HIGH).setSessionId("s9")
                .setContent("user jane.doe@example.com pasted card 4111 1111 1111 1111").build());

        assertThat(out.chat()).singleElement().satisfies(block -> {
            assertThat(block.getText()).doesNotContain("jane.doe", "4111")
                    .contains("[REDACTED:EMAIL]", "[REDACTED:CARD]");
            assertThat(block.getRedactions()).containsEntry("EMAIL", 1).containsEntry("CARD", 1);
        });
    }

    @Test
    void aFloodOfProposalsOrOfVotesForUnknownProposalsIsRefusedPastTheLimitAndTheCouncilDecidesOn() {
        out = start(CouncilSettings.defaults());
        out.send(heartbeat("prime", 0));
        out.send(heartbeat("lite", 0));
        for (int i = 0; i < CouncilSettings.MAX_OPEN; i++) {
            out.send(proposal("flood-" + i, "lite", 1).build());
            out.send(vote("ghost-" + i, "lite", Vote.YES, 1));
        }
        out.send(proposal("flood-over", "lite", 2).build());
        out.send(vote("ghost-over", "lite", Vote.YES, 2));

        assertThat(out.deadLetters()).extracting(DeadLetter::getReason).containsExactly(
                "council default already has 1000 open proposals, its limit: proposal flood-over from lite is refused "
                        + "(a flood of proposals cannot grow a council's state)",
                "council default already holds 1000 votes for proposals it has not seen, its limit: the vote of lite "
                        + "on unknown proposal ghost-over is refused");
        out.send(vote("flood-7", "prime", Vote.YES, 3));
        out.send(vote("flood-7", "lite", Vote.NO, 3));
        assertThat(out.decisions()).extracting(CouncilDecision::getProposalId).contains("flood-7");
    }

    @Test
    void anInvalidEnvelopeIsDeadLetteredWithItsReasonAndChangesNothing() {
        out = start(CouncilSettings.defaults());
        out.send(heartbeat("gpt", 500));
        out.messages.pipeInput("other", heartbeat("lite", 500), at(500));
        out.send(message("m3", "lite", CouncilMessageType.INFO, 500).setConfidence(1.2).build());

        assertThat(out.deadLetters()).extracting(DeadLetter::getErrorKind, DeadLetter::getSourceOffset,
                        DeadLetter::getProcessor, DeadLetter::getReason)
                .containsExactly(
                        tuple(ErrorKind.VALIDATION, 0L, "deliberate",
                                "sender 'gpt' is not a council role [prime, lite, codemind], 'router', 'autofix', 'assembly', 'gatekeeper' or 'council'"),
                        tuple(ErrorKind.VALIDATION, 1L, "deliberate",
                                "record key 'other' is not the council_id 'default': council.messages is keyed by "
                                        + "council_id"),
                        tuple(ErrorKind.VALIDATION, 2L, "deliberate", "confidence 1.2 is outside 0..1"));
        assertThat(out.store(CouncilTopology.CLOCK_STORE).get(COUNCIL)).as("invalid messages never move the clock")
                .isNull();
        assertThat(out.storedRoles()).isEmpty();
    }

    @Test
    void aMessageFromAClockFarAheadIsDeadLetteredAndNeitherMovesTheCouncilNorStopsIt() {
        out = startChecked(CouncilSettings.defaults());
        heartbeats(0, ALL);
        out.roleChanges();
        out.send(message("fast", "lite", CouncilMessageType.HEARTBEAT, 2 * 3600).build());
        out.send(message("far", "lite", CouncilMessageType.HEARTBEAT, 0)
                .setTimestamp(java.time.Instant.parse("9999-12-31T23:59:59Z")).build());
        out.send(proposal("p1", "lite", 20).build());
        out.send(vote("p1", "prime", Vote.YES, 25));
        out.send(vote("p1", "lite", Vote.YES, 29));

        assertThat(out.deadLetters()).extracting(DeadLetter::getErrorKind, DeadLetter::getSourceOffset)
                .containsExactly(tuple(ErrorKind.VALIDATION, 3L), tuple(ErrorKind.VALIDATION, 4L));
        assertThat(out.store(CouncilTopology.CLOCK_STORE).get(COUNCIL)).as("the clock never saw them")
                .isEqualTo(at(29).toEpochMilli());
        assertThat(out.roleChanges()).as("no role timed out").isEmpty();
        assertThat(out.decisions()).extracting(CouncilDecision::getOutcome).containsExactly(CouncilOutcome.APPROVED);
    }

    @Test
    void replayingTheRecordedTopicGivesExactlyTheSameAnswers() {
        out = start(CouncilSettings.defaults());
        List<TestRecord<String, CouncilMessage>> log = new ArrayList<>();
        List<CouncilMessage> written = new ArrayList<>();
        Runnable record = () -> out.written().forEach(message -> {
            log.add(new TestRecord<>(message.getCouncilId(), message, message.getTimestamp()));
            written.add(message);
        });
        List<CouncilMessage> script = List.of(
                heartbeat("prime", 0), heartbeat("lite", 0), heartbeat("codemind", 0),
                proposal("p1", "lite", 1).build(), vote("p1", "prime", Vote.YES, 2), vote("p1", "lite", Vote.NO, 3),
                vote("p2", "codemind", Vote.YES, 4), proposal("p2", "codemind", 5).setConfidence(0.2).build());
        for (CouncilMessage message : script) {
            log.add(new TestRecord<>(COUNCIL, message, message.getTimestamp()));
            out.send(message);
            record.run();
        }
        out.advanceWallClockTo(100);
        record.run();
        List<CouncilMessage> later = List.of(heartbeat("prime", 120), heartbeat("lite", 121),
                proposal("p3", "prime", 122).build(), vote("p3", "lite", Vote.YES, 123),
                vote("p3", "lite", Vote.NO, 124));
        for (CouncilMessage message : later) {
            log.add(new TestRecord<>(COUNCIL, message, message.getTimestamp()));
            out.send(message);
            record.run();
        }
        out.advanceWallClockTo(215);
        record.run();
        CouncilMessage routed = message("s9-interrupts-3", "router", CouncilMessageType.ESCALATION, 220)
                .setRiskLevel(RiskLevel.HIGH).setSessionId("s9").setContent("3 consecutive INTERRUPTs").build();
        log.add(new TestRecord<>(COUNCIL, routed, routed.getTimestamp()));
        out.send(routed);
        record.run();
        List<RoleStatus> roles = out.roleChanges();
        List<CouncilDecision> decisions = out.decisions();
        List<RoutedBlock> chat = out.chat();
        List<String> letters = out.deadLetters().stream().map(DeadLetter::getReason).toList();
        assertThat(decisions).extracting(CouncilDecision::getProposalId, CouncilDecision::getOutcome)
                .containsExactly(tuple("p1", CouncilOutcome.APPROVED), tuple("p2", CouncilOutcome.NO_QUORUM),
                        tuple("p3", CouncilOutcome.NO_QUORUM));
        assertThat(written).filteredOn(m -> m.getType() == CouncilMessageType.HEARTBEAT)
                .as("the wall clock fired twice").hasSize(2);
        assertThat(letters).hasSize(1);

        Outputs replay = start(CouncilSettings.defaults().withTimes(Duration.ofSeconds(90), Duration.ofMinutes(5),
                Duration.ZERO));
        log.forEach(replay.messages::pipeInput);

        assertThat(replay.roleChanges()).isEqualTo(roles);
        assertThat(replay.decisions()).isEqualTo(decisions);
        assertThat(replay.chat()).isEqualTo(chat);
        assertThat(replay.written()).isEqualTo(written.stream()
                .filter(m -> m.getType() == CouncilMessageType.ESCALATION).toList());
        assertThat(replay.deadLetters()).extracting(DeadLetter::getReason).isEqualTo(letters);
    }

    private void heartbeats(double seconds, String... roles) {
        for (String role : roles) {
            out.send(heartbeat(role, seconds));
        }
    }

    /**
     * Scripted messages run ahead of the driver's wall clock, which only moves where a test says so; the skew
     * check, which compares the two, is off here and tested on its own.
     */
    /** One app key for every council here: a replay signs its decisions as the first run did. */
    private static final Ed25519.Key APP_KEY = Ed25519.Key.generated();

    private Outputs start(CouncilSettings settings) {
        return startChecked(settings.withMaxClockSkew(Duration.ofDays(1)));
    }

    private Outputs startChecked(CouncilSettings settings) {
        StreamsBuilder builder = new StreamsBuilder();
        CouncilTopology.build(builder, topics, settings, Redactor.defaults(), APP_KEY);
        TopologyTestDriver driver = Drivers.driver(builder.build(), stateDir.resolve("d" + drivers.size()),
                Records.T0);
        drivers.add(driver);
        return new Outputs(driver, topics);
    }

    /** One driver's topics and stores. Each read drains what its topic received since the last one. */
    private static final class Outputs {
        final TopologyTestDriver driver;
        final TestInputTopic<String, CouncilMessage> messages;
        private final TestOutputTopic<String, RoleStatus> roles;
        private final TestOutputTopic<String, CouncilDecision> decisions;
        private final TestOutputTopic<String, CouncilDecision> bySession;
        private final TestOutputTopic<String, CouncilMessage> written;
        private final TestOutputTopic<String, RoutedBlock> chat;
        private final TestOutputTopic<String, DeadLetter> deadLetters;
        private final TestOutputTopic<String, CouncilState> states;
        private Duration wallClock = Duration.ZERO;

        Outputs(TopologyTestDriver driver, Topics topics) {
            this.driver = driver;
            messages = TopicDriver.input(driver, topics.councilMessages);
            roles = TopicDriver.output(driver, topics.councilRoles);
            decisions = TopicDriver.output(driver, topics.councilDecisions);
            bySession = TopicDriver.output(driver, topics.councilDecisionsBySession);
            written = TopicDriver.output(driver, topics.councilMessages);
            chat = TopicDriver.output(driver, topics.channel(Channel.COUNCIL_CHAT));
            deadLetters = TopicDriver.output(driver, topics.deadLetters);
            states = TopicDriver.output(driver, topics.councilState);
        }

        void send(CouncilMessage message) {
            messages.pipeInput(message.getCouncilId(), message, message.getTimestamp());
        }

        /** Moves the wall clock to T0 + seconds in steps of one second, as time passes for a running app. */
        void advanceWallClockTo(long seconds) {
            while (wallClock.toSeconds() < seconds) {
                driver.advanceWallClockTime(Duration.ofSeconds(1));
                wallClock = wallClock.plusSeconds(1);
            }
        }

        List<RoleStatus> roleChanges() {
            return roles.readValuesToList();
        }

        /** Every role's status in the roles store. */
        List<RoleStatus> storedRoles() {
            KeyValueStore<String, RoleStatus> store = store(CouncilTopology.ROLES_STORE);
            List<RoleStatus> all = new ArrayList<>();
            try (var entries = store.all()) {
                entries.forEachRemaining(entry -> all.add(entry.value));
            }
            return all;
        }

        List<CouncilDecision> decisions() {
            return decisions.readValuesToList();
        }

        /** What council.decisions.by-session received, by key. */
        List<KeyValue<String, CouncilDecision>> decisionsBySession() {
            return bySession.readKeyValuesToList();
        }

        List<CouncilMessage> written() {
            return written.readValuesToList();
        }

        List<RoutedBlock> chat() {
            return chat.readValuesToList();
        }

        List<TestRecord<String, CouncilState>> states() {
            return states.readRecordsToList();
        }

        List<DeadLetter> deadLetters() {
            return deadLetters.readValuesToList();
        }

        <V> KeyValueStore<String, V> store(String name) {
            return driver.getKeyValueStore(name);
        }
    }
}
