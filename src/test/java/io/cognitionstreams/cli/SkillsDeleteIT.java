package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/**
 * `cognition skills delete` against a running instance: the gatekeeper and the assembly forget the skill. Each
 * reads cognition.skills on its own global thread, which applies a change a moment after the command returns, so
 * the test sends calls until the change shows, then checks that it stays.
 */
@ExtendWith(SharedBroker.class)
class SkillsDeleteIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
    private final AtomicInteger calls = new AtomicInteger();

    @Test
    void aDeletedSkillsCallsAreDeniedAsUnknownAndRequestsNamingItAreDeadLettered(EmbeddedKafkaBroker broker,
                                                                                @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String skill = "deployer-" + run;
        String session = "skills-" + run;
        Path skills = dir.resolve("skills");
        Files.createDirectories(skills.resolve(skill));
        Files.writeString(skills.resolve(skill).resolve("SKILL.md"), String.join("\n", "---", "name: " + skill,
                "version: 1.0.0", "description: Deploys releases.", "permissions:", "  - git:*", "---",
                "# Deployer protocol", "", "Check the release branch before tagging it.", ""));
        try (CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, "it-" + run,
                dir.resolve("state")))) {
            runtime.awaitRunning(TIMEOUT);

            Cli load = Cli.run("skills", "load", "--dir", skills.toString(), "--bootstrap-servers", bootstrap);
            assertThat(load.exitCode()).as(load.err()).isZero();
            assertThat(decisionOnceSettled(bootstrap, dir, session, skill, Verdict.APPROVED).getReason())
                    .contains("approved");

            Cli delete = Cli.run("skills", "delete", skill, "--bootstrap-servers", bootstrap);
            assertThat(delete.exitCode()).as(delete.err()).isZero();
            assertThat(delete.err()).contains("wrote 1 tombstone to cognition.skills");

            ToolDecision denied = decisionOnceSettled(bootstrap, dir, session, skill, Verdict.DENIED);
            assertThat(denied.getReason()).contains("unknown skill \"" + skill + "\"");
            assertThat(decision(bootstrap, dir, session, skill).getVerdict()).as("and it stays deleted")
                    .isEqualTo(Verdict.DENIED);

            Path request = dir.resolve("request.jsonl");
            Files.writeString(request, "{\"request_id\":\"" + run + "-r1\",\"session_id\":\"" + session + "\","
                    + "\"user_prompt\":\"Tag the release.\",\"active_skill\":\"" + skill + "\","
                    + "\"timestamp\":\"2026-11-22T10:00:00Z\"}\n");
            Cli produce = Cli.run("produce", "--topic", Topics.COGNITION_REQUESTS, "--file", request.toString(),
                    "--bootstrap-servers", bootstrap);
            assertThat(produce.exitCode()).as(produce.err()).isZero();
            List<DeadLetter> letters = Kafka.readUntil(bootstrap, topics.deadLetters,
                    letter -> letter.getSourceTopic().equals(Topics.COGNITION_REQUESTS)
                            && letter.getReason().contains("'" + skill + "'"),
                    seen -> !seen.isEmpty(), TIMEOUT);
            assertThat(letters.get(0).getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
            assertThat(letters.get(0).getReason()).contains("unknown active_skill '" + skill + "'");
        }
    }

    /** Sends calls under the skill until one gets the verdict: the first after the global store has the change. */
    private ToolDecision decisionOnceSettled(String bootstrap, Path dir, String session, String skill,
                                             Verdict wanted) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        ToolDecision decision = decision(bootstrap, dir, session, skill);
        while (decision.getVerdict() != wanted && System.nanoTime() < deadline) {
            decision = decision(bootstrap, dir, session, skill);
        }
        assertThat(decision.getVerdict()).as(decision.getReason()).isEqualTo(wanted);
        return decision;
    }

    /** One tool call under the skill, produced as an agent would, and the gatekeeper's decision on it. */
    private ToolDecision decision(String bootstrap, Path dir, String session, String skill) throws Exception {
        String callId = session + "-call-" + calls.incrementAndGet();
        Path call = dir.resolve(callId + ".jsonl");
        Files.writeString(call, "{\"call_id\":\"" + callId + "\",\"session_id\":\"" + session + "\","
                + "\"caller\":\"" + skill + "\",\"skill\":\"" + skill + "\",\"tool\":\"git.status\","
                + "\"timestamp\":\"2026-11-22T10:00:00Z\"}\n");
        Cli produce = Cli.run("produce", "--topic", Topics.TOOL_CALLS, "--file", call.toString(),
                "--bootstrap-servers", bootstrap);
        assertThat(produce.exitCode()).as(produce.err()).isZero();
        return Kafka.readUntil(bootstrap, topics.toolDecisions,
                decision -> decision.getCall().getCallId().equals(callId), seen -> !seen.isEmpty(), TIMEOUT).get(0);
    }
}
