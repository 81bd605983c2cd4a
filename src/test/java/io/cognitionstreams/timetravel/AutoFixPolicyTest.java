package io.cognitionstreams.timetravel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.testing.Records;

class AutoFixPolicyTest {

    private final AutoFixPolicy policy = AutoFixPolicy.defaults();

    @Test
    void retriesAtMostMaxRetriesTimes() {
        assertThat(policy.maxRetries()).isEqualTo(2);
        assertThat(policy.mayRetry(0)).isTrue();
        assertThat(policy.mayRetry(1)).isTrue();
        assertThat(policy.mayRetry(2)).isFalse();
        assertThat(new AutoFixPolicy(0).mayRetry(0)).isFalse();
        assertThatThrownBy(() -> new AutoFixPolicy(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRetryIsTheOriginalForkedFromThePreviousCheckpoint() {
        CognitionRequest original = Records.request("s1", "Verify the canary").setRequestId("r7")
                .setPersona("developer").setActiveSkill("deploy").setTaskInstructionKey("verification").setMtu(8000)
                .setParentId("upstream").build();
        Checkpoint failed = checkpoint(1, "41");
        Instant at = Instant.parse("2026-11-22T10:05:00Z");

        CognitionRequest retry = policy.retry(original, failed, "VERIFY reported a failure: fail", at);

        assertThat(retry.getRequestId()).as("same id: packet ids stay deterministic per retry").isEqualTo("r7");
        assertThat(retry.getRetryCount()).isEqualTo(2);
        assertThat(retry.getRetryReason()).isEqualTo("VERIFY reported a failure: fail");
        assertThat(retry.getParentId()).isEqualTo("failedpk");
        assertThat(retry.getHistoryUntil()).isEqualTo(41L);
        assertThat(retry.getTimestamp()).isEqualTo(at);
        assertThat(CognitionRequest.newBuilder(retry).setRetryCount(0).setRetryReason(null).setParentId("upstream")
                .setHistoryUntil(null).setTimestamp(original.getTimestamp()).build()).isEqualTo(original);
        assertThatThrownBy(() -> policy.retry(original, checkpoint(2, "41"), "again", at))
                .isInstanceOf(IllegalStateException.class);
    }

    private static Checkpoint checkpoint(int retryCount, String historyRef) {
        return Checkpoint.newBuilder().setSessionId("s1").setSequence(3).setStage("VERIFY").setPacketId("failedpk")
                .setRequestId("r7").setSourceTopic("cognition.packets").setSourcePartition(0).setSourceOffset(9)
                .setHistoryRef(historyRef).setRetryCount(retryCount).setTimestamp(Records.T0).build();
    }
}
