package io.cognitionstreams.council;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.app.StreamsSettings;
import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * The council on a real broker with live time: heartbeats every second, a 3 s timeout. CodeMind falls silent and
 * the two others still decide; Lite falls silent and nothing can be decided; Prime falls silent and only the wall
 * clock notices. Then the app restarts on an empty state directory and repeats nothing.
 */
@ExtendWith(SharedBroker.class)
class CouncilIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final CouncilSettings SETTINGS = CouncilSettings.defaults()
            .withTimes(Duration.ofSeconds(3), Duration.ofSeconds(30), Duration.ofMillis(250));

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void aRoleThatStopsItsHeartbeatsShrinksTheQuorumAndARestartEmitsNothingTwice(EmbeddedKafkaBroker broker,
                                                                                 @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String council = "it-" + run;
        Settings settings = Logins.app(Settings.local(bootstrap, "council-it-" + run, dir.resolve("first"))
                .withCouncil(SETTINGS));
        try (Admin admin = Admin.create(settings.clientConfig())) {
            TopicProvisioner.ensure(admin, topics, settings.partitions(), settings.replicationFactor());
        }
        Set<String> beating = new CopyOnWriteArraySet<>(List.of("prime", "lite"));
        ScheduledExecutorService heart = Executors.newSingleThreadScheduledExecutor();
        try (KafkaProducer<String, CouncilMessage> roles = producer(bootstrap)) {
            Sender send = message -> roles.send(new ProducerRecord<>(topics.councilMessages.name(), council,
                    message)).get();
            KafkaStreams app = start(settings);
            send.accept(heartbeat(council, "codemind"));
            heart.scheduleAtFixedRate(() -> beating.forEach(role -> roles.send(new ProducerRecord<>(
                    topics.councilMessages.name(), council, heartbeat(council, role)))), 0, 1, TimeUnit.SECONDS);

            awaitRole(bootstrap, council, "codemind", RoleState.INACTIVE);
            send.accept(proposal(council, "p1", "lite"));
            send.accept(vote(council, "p1", "codemind", Vote.NO));
            send.accept(vote(council, "p1", "prime", Vote.YES));
            send.accept(vote(council, "p1", "lite", Vote.YES));
            CouncilDecision approved = await(bootstrap, topics.councilDecisions,
                    d -> d.getCouncilId().equals(council), 1).get(0);
            assertThat(approved.getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
            assertThat(approved.getVoters()).containsExactly("prime", "lite");
            assertThat(approved.getReason()).endsWith("quorum 2 of 2 active roles");
            assertThat(await(bootstrap, topics.deadLetters, fromCouncil(council), 1).get(0).getReason())
                    .startsWith("role codemind is inactive");

            beating.remove("lite");
            awaitRole(bootstrap, council, "lite", RoleState.INACTIVE);
            send.accept(proposal(council, "p2", "prime"));
            assertThat(await(bootstrap, topics.councilDecisions, d -> d.getCouncilId().equals(council), 2)
                    .get(1).getOutcome()).isEqualTo(CouncilOutcome.NO_QUORUM);
            assertThat(await(bootstrap, topics.channel(Channel.COUNCIL_CHAT), b -> b.getSessionId().equals(council),
                    1).get(0).getOutputId()).isEqualTo("esc-no-quorum-p2");

            beating.clear();
            awaitRole(bootstrap, council, "prime", RoleState.INACTIVE);
            assertThat(Kafka.readAll(bootstrap, topics.councilMessages, m -> m.getCouncilId().equals(council)
                    && m.getSender().equals(CouncilSettings.COUNCIL_SENDER)
                    && m.getType() == CouncilMessageType.HEARTBEAT))
                    .as("with every role silent, only the wall clock's ticks move the council's clock").isNotEmpty();

            stop(app);
            List<RoleStatus> rolesBefore = Kafka.readAll(bootstrap, topics.councilRoles, ofCouncil(council));
            assertThat(rolesBefore).extracting(RoleStatus::getRole, RoleStatus::getStatus).containsExactly(
                    tuple("codemind", RoleState.ACTIVE), tuple("prime", RoleState.ACTIVE),
                    tuple("lite", RoleState.ACTIVE), tuple("codemind", RoleState.INACTIVE),
                    tuple("lite", RoleState.INACTIVE), tuple("prime", RoleState.INACTIVE));
            // Another state directory: the new instance restores the council from the changelogs alone.
            Settings restarted = Logins.app(Settings.local(bootstrap, settings.applicationId(),
                    dir.resolve("second")).withCouncil(SETTINGS));
            app = start(restarted);
            send.accept(vote(council, "p1", "prime", Vote.NO));
            send.accept(proposal(council, "p2", "prime"));
            assertThat(await(bootstrap, topics.deadLetters, fromCouncil(council), 2)).extracting(DeadLetter::getReason)
                    .anySatisfy(reason -> assertThat(reason).startsWith("proposal p2 was already made"));
            // council.state, written by the restarted instance within a tick of its start (what it restored).
            String view = awaitView(council, bootstrap, "codemind");
            assertThat(view).contains("council " + council).containsPattern("prime +INACTIVE")
                    .containsPattern("lite +INACTIVE").containsPattern("codemind +INACTIVE")
                    .contains("(no open proposal)");
            stop(app);

            assertThat(Kafka.readAll(bootstrap, topics.councilDecisions, d -> d.getCouncilId().equals(council)))
                    .extracting(CouncilDecision::getProposalId, CouncilDecision::getOutcome)
                    .containsExactly(tuple("p1", CouncilOutcome.APPROVED), tuple("p2", CouncilOutcome.NO_QUORUM));
            assertThat(Kafka.readAll(bootstrap, topics.councilRoles, ofCouncil(council))).isEqualTo(rolesBefore);
            assertThat(Kafka.readAll(bootstrap, topics.councilMessages, m -> m.getCouncilId().equals(council)
                    && m.getType() == CouncilMessageType.ESCALATION)).extracting(CouncilMessage::getMsgId)
                    .containsExactly("esc-no-quorum-p2");
            assertThat(Kafka.readAll(bootstrap, topics.channel(Channel.COUNCIL_CHAT),
                    b -> b.getSessionId().equals(council))).extracting(RoutedBlock::getOutputId)
                    .containsExactly("esc-no-quorum-p2");

        } finally {
            heart.shutdownNow();
        }
    }

    private interface Sender {
        void accept(CouncilMessage message) throws Exception;
    }

    private KafkaStreams start(Settings settings) throws InterruptedException {
        Properties props = StreamsSettings.of(settings, CouncilTopology.NAME, Set.of());
        StreamsBuilder builder = new StreamsBuilder();
        CouncilTopology.build(builder, topics, settings.council(), Redactor.defaults(), Ed25519.Key.generated());
        KafkaStreams app = new KafkaStreams(builder.build(props), props);
        app.start();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (app.state() != KafkaStreams.State.RUNNING) {
            assertThat(System.nanoTime()).as("council app running; it is " + app.state()).isLessThan(deadline);
            Thread.sleep(100);
        }
        return app;
    }

    /** Closes the app and leaves its group, so the restarted instance gets the tasks without a session timeout. */
    private static void stop(KafkaStreams app) {
        assertThat(app.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(TIMEOUT))).as("closed within " + TIMEOUT).isTrue();
    }

    private void awaitRole(String bootstrap, String council, String role, RoleState state) {
        await(bootstrap, topics.councilRoles, r -> r.getCouncilId().equals(council) && r.getRole().equals(role)
                && r.getStatus() == state, 1);
    }

    /** Waits until the topic holds at least {@code atLeast} matching records; returns those read so far. */
    private static <V> List<V> await(String bootstrap, Topic<String, V> topic, Predicate<V> wanted, int atLeast) {
        return Kafka.readUntil(bootstrap, topic, wanted, seen -> seen.size() >= atLeast, TIMEOUT);
    }

    private static Predicate<RoleStatus> ofCouncil(String council) {
        return status -> status.getCouncilId().equals(council);
    }

    private static Predicate<DeadLetter> fromCouncil(String council) {
        return letter -> letter.getKey() != null
                && StandardCharsets.UTF_8.decode(letter.getKey().duplicate()).toString().equals(council);
    }

    /**
     * Speaks for every role. On a secured broker it logs in as one role: the ACLs let any role write any role's
     * messages (only signatures, off here, bind a message to its role; docs/security.md).
     */
    private KafkaProducer<String, CouncilMessage> producer(String bootstrap) {
        Map<String, Object> config = Logins.as(bootstrap, Principals.council("prime"));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(config, topics.councilMessages.keySerde().serializer(),
                topics.councilMessages.valueSerde().serializer());
    }

    /** `cognition council` until its view lists {@code role} (the council writes its state once a tick). */
    private static String awaitView(String council, String bootstrap, String role) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String[] watch = Logins.cli(bootstrap, Principals.OPERATOR, "council", "--council-id", council);
        String view = cli(watch);
        while (!view.contains(role) && System.nanoTime() < deadline) {
            Thread.sleep(250);
            view = cli(watch);
        }
        return view;
    }

    private static String cli(String... args) {
        Cli ran = Cli.run(args);
        assertThat(ran.exitCode()).as(ran.err()).isZero();
        return ran.out();
    }

    private static CouncilMessage.Builder message(String council, String id, String sender,
                                                  CouncilMessageType type) {
        return CouncilMessage.newBuilder()
                .setMsgId(id)
                .setCouncilId(council)
                .setTimestamp(Instant.now())
                .setSender(sender)
                .setRole("member")
                .setType(type)
                .setRiskLevel(RiskLevel.LOW);
    }

    private static CouncilMessage heartbeat(String council, String role) {
        return message(council, role + "-hb-" + System.nanoTime(), role, CouncilMessageType.HEARTBEAT).build();
    }

    private static CouncilMessage proposal(String council, String id, String role) {
        return message(council, id, role, CouncilMessageType.PROPOSAL).setContent("Deploy release 2.4.0").build();
    }

    private static CouncilMessage vote(String council, String proposal, String role, Vote vote) {
        return message(council, "vote-" + proposal + "-" + role + "-" + System.nanoTime(), role,
                CouncilMessageType.VOTE).setProposalId(proposal).setVote(vote).build();
    }
}
