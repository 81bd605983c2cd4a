package io.cognitionstreams.council;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;

import org.apache.kafka.clients.admin.Admin;
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
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/**
 * A council with signatures required, spoken to as a role's operator would: `cognition council keygen --publish`
 * registers each role's key, `cognition council sign` signs its messages, `cognition produce` sends them. The keys
 * are made by the launcher, as a user runs it; the twenty-odd sign and produce commands run in-process through the
 * same entry (as child JVMs they took minutes on a loaded machine). A vote signed with a stranger's key and an
 * unsigned one each become one dead letter and never count; the signed votes decide.
 */
@ExtendWith(SharedBroker.class)
class CouncilSigningIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final String council = "signed-" + run;
    private final String prime = "prime-" + run;
    private final String lite = "lite-" + run;

    @Test
    void onlyMessagesSignedByTheSendersPublishedKeyCount(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        // Heartbeats stop once both roles count: when each message was two JVM launches, a loaded machine took
        // longer than a 30 s heartbeat timeout over the votes, the roles went inactive and the council ended in
        // NO_QUORUM. What is tested here is the signatures, so roles and proposal outlive the test.
        CouncilSettings required = new CouncilSettings(List.of(prime, lite), prime, 2, Duration.ofMinutes(10),
                Duration.ofMinutes(10), Duration.ofMillis(250), CouncilSettings.DEFAULT_MAX_CLOCK_SKEW)
                .withSignatures(CouncilSettings.Signatures.REQUIRED, Duration.ofMinutes(5));
        Settings settings = Logins.app(Settings.local(bootstrap, "signing-it-" + run, dir.resolve("state"))
                .withCouncil(required));
        try (Admin admin = Admin.create(settings.clientConfig())) {
            TopicProvisioner.ensure(admin, topics, settings.partitions(), settings.replicationFactor());
        }
        Path primeKey = dir.resolve("prime.pem");
        Path liteKey = dir.resolve("lite.pem");
        Path strangerKey = dir.resolve("stranger.pem");
        // Only governance publishes keys on a secured broker.
        Cli published = launch(dir, Logins.cli(bootstrap, Principals.GOVERNANCE, "council", "keygen", "--role", prime,
                "--key", primeKey.toString(), "--publish"));
        assertThat(published.out()).startsWith("role " + prime + " key ");
        run(Logins.cli(bootstrap, Principals.GOVERNANCE, "council", "keygen", "--role", lite, "--key",
                liteKey.toString(), "--publish"));
        run("council", "keygen", "--role", lite, "--key", strangerKey.toString());
        assertThat(Kafka.readAll(bootstrap, topics.councilKeys, key -> key.getRole().endsWith(run)))
                .extracting(CouncilKey::getRole).containsExactlyInAnyOrder(prime, lite);
        Cli again = Cli.run("council", "keygen", "--role", lite, "--key", liteKey.toString());
        assertThat(again.exitCode()).as("a key is never overwritten").isNotZero();
        assertThat(again.err()).contains("exists");

        Properties props = StreamsSettings.of(settings, CouncilTopology.NAME, Set.of());
        StreamsBuilder builder = new StreamsBuilder();
        CouncilTopology.build(builder, topics, required, Redactor.defaults(), Ed25519.Key.generated());
        try (KafkaStreams app = new KafkaStreams(builder.build(props), props)) {
            app.start();
            // The keys reach the council's global store a moment after they are written: beat until both count.
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (activeRoles(bootstrap) < 2) {
                assertThat(System.nanoTime()).as("both roles active").isLessThan(deadline);
                produce(dir, bootstrap, primeKey, message("hb-p-" + System.nanoTime(), prime,
                        CouncilMessageType.HEARTBEAT).build());
                produce(dir, bootstrap, liteKey, message("hb-l-" + System.nanoTime(), lite,
                        CouncilMessageType.HEARTBEAT).build());
                Thread.sleep(1_000);
            }

            produce(dir, bootstrap, primeKey, message("p1", prime, CouncilMessageType.PROPOSAL)
                    .setContent("Deploy release 2.4.0").build());
            produce(dir, bootstrap, strangerKey, vote("forged", lite, Vote.NO));
            Path unsigned = Files.writeString(dir.resolve("unsigned.jsonl"),
                    JsonAvro.toJson(vote("unsigned", lite, Vote.NO)) + "\n");
            run(Logins.cli(bootstrap, COUNCIL_LOGIN, "produce", "--topic", Topics.COUNCIL_MESSAGES, "--file",
                    unsigned.toString()));
            produce(dir, bootstrap, liteKey, vote("genuine-lite", lite, Vote.YES));
            produce(dir, bootstrap, primeKey, vote("genuine-prime", prime, Vote.YES));

            CouncilDecision decision = Kafka.readUntil(bootstrap, topics.councilDecisions,
                    d -> d.getCouncilId().equals(council), seen -> !seen.isEmpty(), TIMEOUT).get(0);
            assertThat(decision.getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
            assertThat(decision.getVoters()).containsExactlyInAnyOrder(prime, lite);
            List<DeadLetter> letters = Kafka.readUntil(bootstrap, topics.deadLetters, this::fromCouncil,
                    seen -> seen.size() >= 2, TIMEOUT);
            assertThat(letters).extracting(DeadLetter::getReason).anySatisfy(reason -> assertThat(reason)
                    .contains("signs with key", "the signer is not the sender it names"))
                    .anySatisfy(reason -> assertThat(reason).contains("the message is not signed"));
        }
    }

    /**
     * Every message goes out under one council role's login on a secured broker: the ACLs let any role write any
     * role's messages, so only the signatures checked here tell the roles apart.
     */
    private static final String COUNCIL_LOGIN = Principals.council("lite");

    private long activeRoles(String bootstrap) {
        return Kafka.readAll(bootstrap, topics.councilRoles, role -> role.getCouncilId().equals(council)
                && role.getStatus() == RoleState.ACTIVE).stream().map(role -> role.getRole()).distinct().count();
    }

    /** `council sign --key K --file F | produce --topic council.messages`, the two commands as a shell runs them. */
    private void produce(Path dir, String bootstrap, Path key, CouncilMessage message) throws Exception {
        Path line = Files.writeString(Files.createTempFile(dir, "message", ".jsonl"), JsonAvro.toJson(message) + "\n");
        Cli signed = run("council", "sign", "--key", key.toString(), "--file", line.toString());
        Path signedLine = Files.writeString(Files.createTempFile(dir, "signed", ".jsonl"), signed.out());
        run(Logins.cli(bootstrap, COUNCIL_LOGIN, "produce", "--topic", Topics.COUNCIL_MESSAGES, "--file",
                signedLine.toString()));
    }

    private static Cli launch(Path dir, String... args) throws Exception {
        return succeeded(Cli.launch(dir, args), args);
    }

    private static Cli run(String... args) {
        return succeeded(Cli.run(args), args);
    }

    private static Cli succeeded(Cli ran, String... args) {
        assertThat(ran.exitCode()).as("%s: %s", String.join(" ", args), ran.err()).isZero();
        return ran;
    }

    private boolean fromCouncil(DeadLetter letter) {
        return letter.getKey() != null
                && StandardCharsets.UTF_8.decode(letter.getKey().duplicate()).toString().equals(council);
    }

    private CouncilMessage.Builder message(String id, String sender, CouncilMessageType type) {
        return CouncilMessage.newBuilder().setMsgId(id).setCouncilId(council).setTimestamp(Instant.now())
                .setSender(sender).setRole("member").setType(type).setRiskLevel(RiskLevel.LOW);
    }

    private CouncilMessage vote(String id, String sender, Vote vote) {
        return message(id, sender, CouncilMessageType.VOTE).setProposalId("p1").setVote(vote).build();
    }
}
