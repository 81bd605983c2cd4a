package io.cognitionstreams.timetravel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topics;

/**
 * The whole pipeline with the replay model: a Verify whose first answer fails recovers on the retry (the canary
 * transcript records a different answer after the recovery lesson), and one that keeps failing (schema migration)
 * ends in autofix/fail and an escalation after max_retries. On a broker of its own: on the shared one its new
 * application first reads through every earlier test's requests, and a full suite made it miss its minute.
 */
@ExtendWith(IsolatedBroker.class)
class AutoFixIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void aFailedVerifyRecoversFromItsCheckpointAndOneThatKeepsFailingIsEscalated(EmbeddedKafkaBroker broker,
                                                                                 @TempDir Path stateDir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String canary = "canary-" + run;
        String migration = "migration-" + run;
        try (CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, "it-" + run, stateDir))) {
            runtime.awaitRunning(TIMEOUT);
            Topics topics = runtime.topics();
            Kafka.send(bootstrap, topics.requests, canary, Records.request(canary,
                    "Verify the canary of build 2.4.1 before it takes more traffic.")
                    .setTaskInstructionKey("verification").setTimestamp(Instant.now()).build());
            Kafka.send(bootstrap, topics.requests, migration, Records.request(migration,
                    "Verify the schema migration of the orders table.")
                    .setTaskInstructionKey("verification").setTimestamp(Instant.now()).build());

            Set<String> sessions = Set.of(canary, migration);
            List<PipelineEvent> events = Kafka.readUntil(bootstrap, topics.events,
                    event -> event.getSessionId() != null && sessions.contains(event.getSessionId())
                            && event.getType().startsWith("autofix/"),
                    seen -> seen.stream().anyMatch(e -> e.getType().equals(AutoFixEvents.RECOVER))
                            && seen.stream().anyMatch(e -> e.getType().equals(AutoFixEvents.FAIL)), TIMEOUT);
            assertThat(events.stream().filter(e -> e.getSessionId().equals(canary)).map(PipelineEvent::getType))
                    .containsExactly(AutoFixEvents.ATTEMPT, AutoFixEvents.TRAVEL, AutoFixEvents.PRUNE,
                            AutoFixEvents.RECOVER);
            assertThat(events.stream().filter(e -> e.getSessionId().equals(migration)).map(PipelineEvent::getType))
                    .containsExactly(AutoFixEvents.ATTEMPT, AutoFixEvents.TRAVEL, AutoFixEvents.PRUNE,
                            AutoFixEvents.ATTEMPT, AutoFixEvents.TRAVEL, AutoFixEvents.PRUNE, AutoFixEvents.FAIL);

            // The retry ran from the failed packet's checkpoint: its history, its lineage, the retry's answer.
            List<CognitionPacket> packets = Kafka.readUntil(bootstrap, topics.packets,
                    packet -> packet.getSessionId().equals(canary), seen -> seen.size() >= 2, TIMEOUT);
            CognitionPacket first = packets.get(0);
            CognitionPacket retry = packets.get(1);
            assertThat(retry.getMeta().getRetryCount()).isEqualTo(1);
            assertThat(retry.getMeta().getParentId()).isEqualTo(first.getMeta().getPacketId());
            assertThat(retry.getHistoryUntil()).isEqualTo(first.getHistoryUntil());
            assertThat(retry.getPayload().getHistory()).last().satisfies(lesson -> assertThat(lesson.getContent())
                    .startsWith("[AUTO-FIX RECOVERY]\nPrevious attempt failed: VERIFY reported a failure: fail:"));
            List<LlmOutput> answers = Kafka.readUntil(bootstrap, topics.llmOutputs,
                    output -> output.getSessionId().equals(canary), seen -> seen.size() >= 2, TIMEOUT);
            assertThat(answers).extracting(LlmOutput::getModel)
                    .containsExactly("replay:canary-verify", "replay:canary-verify/retry");

            List<Checkpoint> checkpoints = Kafka.readUntil(bootstrap, topics.checkpoints,
                    checkpoint -> checkpoint.getSessionId().equals(canary), seen -> seen.size() >= 3, TIMEOUT);
            assertThat(checkpoints).extracting(Checkpoints::kind, Checkpoint::getBranchId, Checkpoint::getStage)
                    .containsExactly(tuple("packet", "main", "VERIFY"),
                            tuple("packet", "retry-1", "VERIFY"),
                            tuple("verified", "retry-1", "VERIFY"));
            assertThat(checkpoints.get(1).getParentCheckpoint()).isEqualTo(Checkpoints.key(checkpoints.get(0)));

            List<CouncilMessage> escalations = Kafka.readUntil(bootstrap, topics.councilMessages,
                    message -> message.getSessionId() != null && sessions.contains(message.getSessionId()),
                    seen -> !seen.isEmpty(), TIMEOUT);
            assertThat(escalations).singleElement().satisfies(escalation -> {
                assertThat(escalation.getSessionId()).isEqualTo(migration);
                assertThat(escalation.getSender()).isEqualTo(AutoFixEvents.SENDER);
                assertThat(escalation.getRiskLevel()).isEqualTo(RiskLevel.HIGH);
                assertThat(escalation.getContent()).contains("still failing after 2 of 2 retries");
            });
        }
    }
}
