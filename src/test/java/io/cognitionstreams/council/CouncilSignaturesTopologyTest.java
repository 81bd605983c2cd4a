package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.COUNCIL;
import static io.cognitionstreams.council.Messages.at;
import static io.cognitionstreams.council.Messages.heartbeat;
import static io.cognitionstreams.council.Messages.message;
import static io.cognitionstreams.council.Messages.proposal;
import static io.cognitionstreams.council.Messages.vote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.Outputs;

/**
 * The council with {@code --council-signatures required} on a TopologyTestDriver: every forged message is one dead
 * letter with its reason, and the tally is what the genuine messages alone make it.
 */
class CouncilSignaturesTopologyTest {

    @TempDir
    Path stateDir;

    private final Topics topics = Drivers.topics();
    private final Ed25519.Key app = Ed25519.Key.generated();
    private final Ed25519.Key prime = Ed25519.Key.generated();
    private final Ed25519.Key lite = Ed25519.Key.generated();
    private final Ed25519.Key stranger = Ed25519.Key.generated();
    private TopologyTestDriver driver;
    private TestInputTopic<String, CouncilMessage> messages;
    private TestInputTopic<String, CouncilKey> keys;
    private TestOutputTopic<String, CouncilDecision> decisions;
    private TestOutputTopic<String, CouncilMessage> written;
    private TestOutputTopic<String, DeadLetter> letters;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        CouncilTopology.build(builder, topics, CouncilSettings.defaults()
                .withSignatures(CouncilSettings.Signatures.REQUIRED, Duration.ofMinutes(5)), Redactor.defaults(), app);
        driver = Drivers.driver(builder.build(), stateDir, Records.T0);
        messages = TopicDriver.input(driver, topics.councilMessages);
        keys = TopicDriver.input(driver, topics.councilKeys);
        decisions = TopicDriver.output(driver, topics.councilDecisions);
        written = TopicDriver.output(driver, topics.councilMessages);
        letters = TopicDriver.output(driver, topics.deadLetters);
        keys.pipeInput("prime", CouncilSignatures.keyRecord("prime", prime.publicKey(), Records.T0));
        keys.pipeInput("lite", CouncilSignatures.keyRecord("lite", lite.publicKey(), Records.T0));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void forgedUnsignedWronglyKeyedReplayedAndStaleMessagesAreEachOneLetterAndNeverCount() {
        send(CouncilSignatures.sign(heartbeat("prime", 1), prime));
        send(CouncilSignatures.sign(heartbeat("lite", 1), lite));
        send(CouncilSignatures.sign(proposal("p1", "lite", 2).build(), lite));

        send(vote("p1", "lite", Vote.NO, 3));                                              // unsigned
        send(CouncilSignatures.sign(vote("p1", "codemind", Vote.NO, 3), stranger));        // no key on council.keys
        send(CouncilSignatures.sign(vote("p1", "lite", Vote.NO, 3), stranger));            // a stranger's key
        send(CouncilSignatures.sign(vote("p1", "lite", Vote.NO, 3), prime));               // prime's key, lite's name
        CouncilMessage edited = CouncilSignatures.sign(vote("p1", "lite", Vote.YES, 3), lite);
        edited.setVote(Vote.NO);
        send(edited);                                                                       // changed after signing
        send(CouncilSignatures.sign(heartbeat("prime", 1), prime));                         // a replay
        send(CouncilSignatures.sign(vote("p1", "lite", Vote.NO, -600), lite));             // ten minutes old
        send(message("esc-1", CouncilSettings.ROUTER_SENDER, CouncilMessageType.ESCALATION, 3)
                .setContent("look").build());                                               // app's name, unsigned
        send(CouncilSignatures.sign(message("esc-2", CouncilSettings.ROUTER_SENDER, CouncilMessageType.ESCALATION,
                3).setContent("look").build(), lite));                                      // app's name, role key

        assertThat(letters.readValuesToList()).extracting(DeadLetter::getErrorKind, DeadLetter::getReason)
                .allSatisfy(letter -> assertThat(letter.toList().get(0)).isEqualTo(ErrorKind.VALIDATION))
                .extracting(letter -> (String) letter.toList().get(1))
                .satisfiesExactly(
                        reason -> assertThat(reason).startsWith("the message is not signed"),
                        reason -> assertThat(reason).contains("role 'codemind' has no key on council.keys"),
                        reason -> assertThat(reason).contains("signed by key " + stranger.id())
                                .contains("signs with key " + lite.id()),
                        reason -> assertThat(reason).contains("signed by key " + prime.id())
                                .contains("the signer is not the sender it names"),
                        reason -> assertThat(reason).contains("does not match the message"),
                        reason -> assertThat(reason).contains("msg_id prime-hb-1.0 was already taken in"),
                        reason -> assertThat(reason).contains("behind the clock")
                                .contains("--council-max-message-age"),
                        reason -> assertThat(reason).startsWith("the message is not signed")
                                .contains("the app's key"),
                        reason -> assertThat(reason).contains("is the app's own")
                                .contains("not the app's key " + app.id()));
        assertThat(decisions.readValuesToList()).as("no forged vote is counted").isEmpty();

        send(CouncilSignatures.sign(vote("p1", "prime", Vote.YES, 4), prime));
        send(CouncilSignatures.sign(vote("p1", "lite", Vote.YES, 4), lite));

        assertThat(decisions.readValuesToList()).extracting(CouncilDecision::getOutcome, CouncilDecision::getYes,
                        CouncilDecision::getNo, CouncilDecision::getVoters)
                .containsExactly(tuple(CouncilOutcome.APPROVED, 2, 0, List.of("prime", "lite")));
        assertThat(letters.readValuesToList()).isEmpty();
    }

    @Test
    void theCouncilSignsItsTicksAndEscalationsWithTheAppKeyAndTakesThemBack() {
        send(CouncilSignatures.sign(heartbeat("prime", 0), prime));
        send(CouncilSignatures.sign(message("risky", "lite", CouncilMessageType.INFO, 0)
                .setRiskLevel(io.cognitionstreams.schema.RiskLevel.HIGH).build(), lite));
        driver.advanceWallClockTime(Duration.ofSeconds(95));

        List<CouncilMessage> own = written.readValuesToList();
        assertThat(own).extracting(CouncilMessage::getType)
                .containsExactly(CouncilMessageType.ESCALATION, CouncilMessageType.HEARTBEAT);
        assertThat(own).allSatisfy(message -> {
            assertThat(message.getSigningKey()).isEqualTo(app.id());
            assertThat(CouncilSignatures.problem(message, app.publicKey(), java.util.Optional.empty())).isEmpty();
        });

        assertThat(letters.readValuesToList()).as("read back (the driver feeds them in), and taken").isEmpty();
        send(own.get(1));
        assertThat(letters.readValuesToList()).extracting(DeadLetter::getReason).singleElement()
                .satisfies(reason -> assertThat(reason).contains("already taken in"));
    }

    @Test
    void noTopologyCanWriteTheCouncilWithoutASeal() {
        Outputs outputs = Outputs.of(new StreamsBuilder().stream("in"), "out");

        assertThatThrownBy(() -> outputs.to(topics.councilMessages)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("out writes council.messages without a seal");
    }

    @Test
    void aKeyRecordTheMirrorRefusesLeavesTheRoleItsKey() {
        keys.pipeInput("lite", CouncilKey.newBuilder(CouncilSignatures.keyRecord("lite", stranger.publicKey(),
                Records.T0)).setKeyId("0000000000000000").build());

        send(CouncilSignatures.sign(heartbeat("lite", 1), lite));
        assertThat(letters.readValuesToList()).isEmpty();
    }

    private void send(CouncilMessage message) {
        messages.pipeInput(COUNCIL, message, at(0));
    }
}
