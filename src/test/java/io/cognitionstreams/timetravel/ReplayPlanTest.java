package io.cognitionstreams.timetravel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topics;

/**
 * Session s: r1 (history 0), r2 (history 2) whose Verify failed once and recovered on retry 1, r3 (history 5:
 * the failed answer stays in the history), and an earlier replay of r1.
 */
class ReplayPlanTest {

    private final List<CognitionRequest> timeline = List.of(
            request("r1", "first", 0),
            request("r2", "second", 1),
            CognitionRequest.newBuilder(request("r2", "second", 1)).setRetryCount(1).setRetryReason("fail")
                    .setHistoryUntil(2L).setParentId("pk2").build(),
            request("r3", "third", 2),
            CognitionRequest.newBuilder(request("r1", "first", 0)).setRequestId("r1@replay-abc")
                    .setHistoryUntil(0L).setParentId("pk1").build());

    private final List<Checkpoint> checkpoints = List.of(
            packet(0, "r1", "pk1", 0, 0, 0),
            packet(1, "r2", "pk2", 2, 0, 1),
            packet(2, "r2", "pk2b", 2, 1, 1),
            Checkpoint.newBuilder(packet(3, "r2", "pk2b", 2, 1, 1)).setSourceTopic(Topics.LLM_OUTPUTS).build(),
            packet(4, "r3", "pk3", 5, 0, 2),
            packet(5, "r1@replay-abc", "pk9", 0, 0, 9));

    @Test
    void aReplayFromAPacketCheckpointReRunsItsTurnAndTheRestEachWithTheHistoryItsOriginalSaw() {
        ReplayPlan.Plan plan = new ReplayPlan("s", checkpoints, 1).replay(timeline, "t1");

        assertThat(plan.requests()).extracting(CognitionRequest::getRequestId)
                .containsExactly("r2@replay-t1", "r3@replay-t1");
        assertThat(plan.requests()).extracting(CognitionRequest::getHistoryUntil).containsExactly(2L, 5L);
        assertThat(plan.requests()).extracting(CognitionRequest::getParentId).containsExactly("pk2", "pk3");
        assertThat(plan.requests()).allSatisfy(request -> {
            assertThat(request.getSessionId()).isEqualTo("s");
            assertThat(request.getRetryCount()).isZero();
            assertThat(request.getRetryReason()).isNull();
        });
        assertThat(plan.requests().get(0).getUserPrompt()).isEqualTo("second");
        assertThat(plan.requests().get(0).getTimestamp()).as("the turn's own time").isEqualTo(at(1));
    }

    @Test
    void aReplayFromAVerifiedCheckpointKeepsTheVerifiedTurn() {
        ReplayPlan plan = new ReplayPlan("s", checkpoints, 3);

        assertThat(plan.replay(timeline, "t2").requests()).extracting(CognitionRequest::getRequestId)
                .containsExactly("r3@replay-t2");
        assertThat(plan.anchorRequestId()).isEqualTo("r2");
        assertThat(plan.anchorTime()).as("the request's time, from its first packet checkpoint").isEqualTo(at(1));
    }

    @Test
    void aReplaysCheckpointLeadsBackToWhatItReplayedAndEarlierReplaysAreNotReplayedAgain() {
        ReplayPlan.Plan plan = new ReplayPlan("s", checkpoints, 5).replay(timeline, "t3");

        assertThat(plan.requests()).extracting(CognitionRequest::getRequestId)
                .containsExactly("r1@replay-t3", "r2@replay-t3", "r3@replay-t3");
        assertThat(plan.requests()).extracting(CognitionRequest::getHistoryUntil).containsExactly(0L, 2L, 5L);
        assertThat(ReplayPlan.origin("r1@replay-a@replay-b")).isEqualTo("r1");
        assertThat(ReplayPlan.isReplay("r1@s~fork-2")).isFalse();
    }

    @Test
    void aTurnThatNeverBecameAPacketSeesNoMoreHistoryThanTheTurnBeforeIt() {
        List<CognitionRequest> withRefused = new ArrayList<>(timeline);
        withRefused.add(request("r4", " ", 3));

        ReplayPlan.Plan plan = new ReplayPlan("s", checkpoints, 4).replay(withRefused, "t4");

        assertThat(plan.requests()).extracting(CognitionRequest::getRequestId)
                .containsExactly("r3@replay-t4", "r4@replay-t4");
        assertThat(plan.requests()).extracting(CognitionRequest::getHistoryUntil).containsExactly(5L, 5L);
        assertThat(plan.requests().get(1).getParentId()).as("no packet: the original request").isEqualTo("r4");
        assertThat(plan.answered()).as("only turns that became packets get answers").containsExactly("r3@replay-t4");
    }

    @Test
    void aForkSendsEveryOriginalToTheNewSessionTheOnesBeforeTheCheckpointRebuildingItsHistory() {
        String fork = ReplayPlan.forkSession("s", 1);
        ReplayPlan.Plan plan = new ReplayPlan("s", checkpoints, 1).fork(timeline, fork, false);

        assertThat(fork).isEqualTo("s~fork-1");
        assertThat(plan.rebuilt()).isEqualTo(1);
        assertThat(plan.requests()).extracting(CognitionRequest::getRequestId)
                .containsExactly("r1@s~fork-1", "r2@s~fork-1", "r3@s~fork-1");
        assertThat(plan.requests()).extracting(CognitionRequest::getParentId).containsExactly("pk1", "pk2", "pk3");
        assertThat(plan.requests()).allSatisfy(request -> {
            assertThat(request.getSessionId()).isEqualTo(fork);
            assertThat(request.getHistoryUntil()).as("a new session's own history").isNull();
        });
        assertThat(plan.requests()).extracting(CognitionRequest::getUserPrompt)
                .containsExactly("first", "second", "third");
        assertThat(plan.answered()).containsExactlyInAnyOrder("r1@s~fork-1", "r2@s~fork-1", "r3@s~fork-1");
        assertThat(plan.requests()).extracting(CognitionRequest::getTimeTravel).as("no tool of a fork runs")
                .containsOnly(TimeTravel.FORK);
        assertThat(plan.requests()).extracting(CognitionRequest::getOriginSessionId).as("the session it forks")
                .containsOnly("s");
    }

    @Test
    void aForkThatExecutesToolsDoesSoOnlyFromItsCheckpointOn() {
        ReplayPlan.Plan plan = new ReplayPlan("s", checkpoints, 1).fork(timeline, "f", true);

        assertThat(plan.requests()).extracting(CognitionRequest::getTimeTravel).as("r1 only rebuilds history")
                .containsExactly(TimeTravel.FORK, TimeTravel.FORK_EXECUTE, TimeTravel.FORK_EXECUTE);
    }

    @Test
    void everyReplayedTurnIsMarkedSoThatNoneOfItsToolsRunsAndAReplayIsNeverAnOriginal() {
        ReplayPlan.Plan plan = new ReplayPlan("s", checkpoints, 1).replay(timeline, "t5");
        List<CognitionRequest> withReplay = new ArrayList<>(timeline);
        // A replayed request under an id that does not say so (written by another client) is still no original.
        withReplay.add(CognitionRequest.newBuilder(plan.requests().get(0)).setRequestId("r9").build());

        assertThat(plan.requests()).extracting(CognitionRequest::getTimeTravel).containsOnly(TimeTravel.REPLAY);
        assertThat(plan.requests()).extracting(CognitionRequest::getOriginSessionId).as("the session it replays")
                .containsOnly("s");
        assertThat(new ReplayPlan("s", checkpoints, 1).replay(withReplay, "t6").requests())
                .extracting(CognitionRequest::getRequestId).doesNotContain("r9@replay-t6");
    }

    @Test
    void aReRunTurnSearchesTheMemoryItsOriginalSearchedAsItWasWhenTheOriginalWasAskedFor() {
        List<Checkpoint> scoped = checkpoints.stream().map(c -> Checkpoint.newBuilder(c)
                .setMemoryScope(c.getRequestId().equals("r3") ? "tenant-b" : "tenant-a").build()).toList();
        List<CognitionRequest> reRun = new ArrayList<>(timeline);
        // r3 was itself a fork's turn: it searched as of its own original's time, which a re-run of it keeps.
        reRun.set(3, CognitionRequest.newBuilder(timeline.get(3)).setMemoryAsOf(at(-5)).build());

        ReplayPlan.Plan replay = new ReplayPlan("s", scoped, 1).replay(reRun, "t7");
        assertThat(replay.requests()).extracting(CognitionRequest::getMemoryScope)
                .containsExactly("tenant-a", "tenant-b");
        assertThat(replay.requests()).extracting(CognitionRequest::getMemoryAsOf).as("the packets' times")
                .containsExactly(at(1), at(-5));

        ReplayPlan.Plan fork = new ReplayPlan("s", scoped, 1).fork(reRun, "f", false);
        assertThat(fork.requests()).extracting(CognitionRequest::getMemoryScope).as("the original's, not the fork's")
                .containsExactly("tenant-a", "tenant-a", "tenant-b");
        assertThat(fork.requests()).extracting(CognitionRequest::getMemoryAsOf)
                .containsExactly(at(0), at(1), at(-5));
    }

    @Test
    void aTurnWhosePacketCheckpointPredatesScopesKeepsItsRequestsScope() {
        ReplayPlan.Plan plan = new ReplayPlan("s", checkpoints, 1).replay(List.of(timeline.get(1),
                CognitionRequest.newBuilder(timeline.get(3)).setMemoryScope("named").build()), "t8");

        assertThat(plan.requests()).extracting(CognitionRequest::getMemoryScope).containsExactly(null, "named");
        assertThat(plan.requests()).extracting(CognitionRequest::getMemoryAsOf).containsExactly(at(1), at(2));
    }

    @Test
    void anUnknownCheckpointOrALostRequestIsAClearError() {
        assertThatThrownBy(() -> new ReplayPlan("s", checkpoints, 9)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("session s has no checkpoint 9; `cognition checkpoints --session s` lists them");
        assertThatThrownBy(() -> new ReplayPlan("s", checkpoints, 4).replay(timeline.subList(0, 2), "t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("request r3 of checkpoint 4 is not on the timeline (deleted by retention?)");
    }

    private static Instant at(int turn) {
        return Records.T0.plusSeconds(60L * turn);
    }

    private static CognitionRequest request(String id, String prompt, int turn) {
        return Records.request("s", prompt).setRequestId(id).setTaskInstructionKey("verification")
                .setPersona("developer").setTimestamp(at(turn)).build();
    }

    private static Checkpoint packet(int sequence, String requestId, String packetId, long history, int retry,
                                     int turn) {
        return Checkpoint.newBuilder().setSessionId("s").setSequence(sequence)
                .setBranchId(retry > 0 ? Checkpoints.retryBranch(retry) : Checkpoints.MAIN_BRANCH)
                .setStage("VERIFY").setPacketId(packetId).setRequestId(requestId)
                .setSourceTopic(Topics.COGNITION_PACKETS).setSourcePartition(0).setSourceOffset(sequence)
                .setHistoryRef(String.valueOf(history)).setRetryCount(retry)
                .setTimestamp(at(turn)).build();
    }
}
