package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;

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

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
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
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.SessionAction;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/**
 * The gatekeeper on a real broker: a session's active skills, and so its warning, survive a restart onto an empty
 * state directory (restored from the changelog), `cognition gatekeeper` shows them, and a reset clears them.
 */
@ExtendWith(SharedBroker.class)
class GatekeeperRestartIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void activeSkillsAndTheirWarningSurviveARestartAndAResetClearsThem(EmbeddedKafkaBroker broker,
                                                                        @TempDir Path dir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String applicationId = "it-" + run;
        String session = "gk-" + run;
        String git = "git-" + run;
        String writer = "writer-" + run;
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            TopicProvisioner.ensure(admin, topics, 3, (short) 1);
        }
        Kafka.send(bootstrap, topics.skills, git, skill(git, "git:*"));
        Kafka.send(bootstrap, topics.skills, writer, skill(writer, "filesystem:*"));

        KafkaStreams first = start(Settings.local(bootstrap, applicationId, dir.resolve("first")));
        try {
            Kafka.send(bootstrap, topics.toolCalls.name(), session, "not avro".getBytes(StandardCharsets.UTF_8));
            // What anyone who may write the council's decisions by session could try: bytes, an unsigned approval.
            Kafka.send(bootstrap, topics.councilDecisionsBySession.name(), session,
                    "not avro".getBytes(StandardCharsets.UTF_8));
            Kafka.send(bootstrap, topics.councilDecisionsBySession, session, CouncilDecision.newBuilder()
                    .setProposalId("p-" + run).setCouncilId("default").setOutcome(CouncilOutcome.APPROVED)
                    .setProposer("gatekeeper").setSessionId(session).setProposalDigest("0".repeat(64))
                    .setReason("trust me").setTimestamp(Instant.now()).build());
            Kafka.send(bootstrap, topics.toolCalls, session, call(session, "c1", git, "git.status"));
            Kafka.send(bootstrap, topics.toolCalls, session, call(session, "c2", writer, "filesystem.read"));
            List<ToolDecision> decisions = Kafka.readUntil(bootstrap, topics.toolDecisions,
                    decision -> session.equals(decision.getCall().getSessionId()), seen -> seen.size() >= 2,
                    TIMEOUT);
            assertThat(decisions).extracting(ToolDecision::getVerdict).containsOnly(Verdict.APPROVED);
            assertThat(resultOf(bootstrap, session, "r1").getCognitiveLoadWarning())
                    .startsWith("[COGNITIVE LOAD WARNING] 2 skills are active in this session (limit 1).");
            DeadLetter letter = Kafka.readUntil(bootstrap, topics.deadLetters,
                    dead -> dead.getSourceTopic().equals(topics.toolCalls.name()) && dead.getKey() != null
                            && session.equals(new String(dead.getKey().array(), StandardCharsets.UTF_8)),
                    seen -> !seen.isEmpty(), TIMEOUT).get(0);
            assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.DESERIALIZATION);
            List<DeadLetter> refused = Kafka.readUntil(bootstrap, topics.deadLetters,
                    dead -> dead.getSourceTopic().equals(Topics.COUNCIL_DECISIONS_BY_SESSION)
                            && dead.getKey() != null
                            && session.equals(new String(dead.getKey().array(), StandardCharsets.UTF_8)),
                    seen -> seen.size() >= 2, TIMEOUT);
            // The deserialization handler's letter and the processor's need not come in the order of the inputs.
            assertThat(refused).extracting(DeadLetter::getErrorKind)
                    .containsExactlyInAnyOrder(ErrorKind.DESERIALIZATION, ErrorKind.VALIDATION);
            assertThat(refused).filteredOn(dead -> dead.getErrorKind() == ErrorKind.VALIDATION)
                    .extracting(DeadLetter::getReason).containsExactly("decision on proposal p-" + run + " refused: "
                            + "the decision is not signed: only the council's decisions, signed with the app's key, "
                            + "decide a call");
        } finally {
            // Leaving the group hands the partitions over at once instead of after the session timeout.
            first.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(TIMEOUT));
        }

        KafkaStreams second = start(Settings.local(bootstrap, applicationId, dir.resolve("second")));
        try {
            assertThat(resultOf(bootstrap, session, "r2").getText()).as("restored from the changelog")
                    .startsWith("ok\n\n[COGNITIVE LOAD WARNING] 2 skills are active in this session (limit 1).");
            assertThat(gatekeeperView(bootstrap, session))
                    .contains("active skills: 2 of 1: overloaded", git + ", " + writer,
                            "calls: 2 approved (0 privileged), 0 denied");

            Kafka.send(bootstrap, topics.sessionControl, session, SessionControl.newBuilder().setSessionId(session)
                    .setAction(SessionAction.RESET_SKILLS).setTimestamp(Instant.now()).build());
            awaitView(bootstrap, session, "active skills: 0 of 1");
            ToolResult calm = resultOf(bootstrap, session, "r3");
            assertThat(calm.getText()).isEqualTo("ok");
            assertThat(calm.getCognitiveLoadWarning()).isNull();
        } finally {
            second.close(TIMEOUT);
        }
    }

    private KafkaStreams start(Settings settings) {
        StreamsBuilder builder = new StreamsBuilder();
        GatekeeperTopology.build(builder, topics, new GatekeeperSettings(Optional.empty(), 1,
                GatekeeperSettings.DEFAULT_RESULTS_RETENTION).withApproval(ApprovalRule.Policy.NEVER,
                GatekeeperSettings.DEFAULT_APPROVAL_TIMEOUT), Redactor.defaults(), DecisionSignatures.Signer.generated(),
                io.cognitionstreams.topology.CouncilSeal.NONE);
        Properties props = StreamsSettings.of(settings, GatekeeperTopology.NAME, Set.of(Topics.COGNITION_SKILLS));
        KafkaStreams streams = new KafkaStreams(builder.build(props), props);
        streams.start();
        return streams;
    }

    private ToolResult resultOf(String bootstrap, String session, String callId) {
        Kafka.send(bootstrap, topics.toolOutcomes, session, ToolResult.newBuilder().setCallId(callId)
                .setSessionId(session).setTool("git.status").setSuccess(true).setText("ok")
                .setTimestamp(Instant.now()).build());
        return Kafka.readUntil(bootstrap, topics.toolResults,
                result -> result.getSessionId().equals(session) && result.getCallId().equals(callId),
                seen -> !seen.isEmpty(), TIMEOUT).get(0);
    }

    private static void awaitView(String bootstrap, String session, String expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String view = gatekeeperView(bootstrap, session);
        while (!view.contains(expected) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            view = gatekeeperView(bootstrap, session);
        }
        assertThat(view).contains(expected);
    }

    private static String gatekeeperView(String bootstrap, String session) {
        Cli view = Cli.run("gatekeeper", "--session", session, "--bootstrap-servers", bootstrap);
        assertThat(view.exitCode()).as(view.err()).isZero();
        return view.out();
    }

    private static Skill skill(String name, String permission) {
        return Skill.newBuilder().setName(name).setPermissions(List.of(permission))
                .setProtocol("# " + name + " protocol").setTimestamp(Instant.now()).build();
    }

    private static ToolCall call(String session, String callId, String skill, String tool) {
        return ToolCall.newBuilder().setCallId(callId).setSessionId(session).setCaller(skill).setSkill(skill)
                .setTool(tool).setTimestamp(Instant.now()).build();
    }
}
