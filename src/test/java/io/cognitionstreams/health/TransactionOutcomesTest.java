package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.health.TransactionOutcomes.Logged;
import io.cognitionstreams.health.TransactionOutcomes.Status;

class TransactionOutcomesTest {

    private static final String ID = "app-routing-4f1c-1";
    /** Routing's transaction of epoch 592, open on tool.calls-0 (the shape of issue 34's crash run). */
    private static final OpenTransaction OPEN = new OpenTransaction("tool.calls", 0, 2, 592, 3, 1200,
            Instant.parse("2026-11-28T10:00:00Z"));

    @Test
    void aCommitItsCoordinatorCompletedWithoutTheMarkersIsCommitted() {
        List<Logged> log = List.of(
                entry(10, Status.ONGOING, 592, Set.of("tool.calls-0", "__consumer_offsets-0")),
                entry(11, Status.PREPARE_COMMIT, 593, Set.of("tool.calls-0", "__consumer_offsets-0")),
                entry(12, Status.COMPLETE_COMMIT, 593, Set.of()));

        assertThat(TransactionOutcomes.recorded(OPEN, ID, log)).hasValueSatisfying(outcome -> {
            assertThat(outcome.commit()).isTrue();
            assertThat(outcome.markerEpoch()).isEqualTo(593);
            assertThat(outcome.transactionVersion()).isEqualTo(2);
            assertThat(outcome.evidence()).contains("ONGOING at epoch 592 with tool.calls-0 (offset 10)")
                    .contains("PREPARE_COMMIT at epoch 593 (offset 11)");
        });
    }

    @Test
    void anAbortIsAborted_aTimedOutOneIncluded() {
        // The coordinator timed it out: it fenced the epoch first, then aborted at the epoch after.
        List<Logged> log = List.of(entry(10, Status.ONGOING, 592, Set.of("tool.calls-0")),
                entry(11, Status.PREPARE_EPOCH_FENCE, 593, Set.of("tool.calls-0")),
                entry(12, Status.PREPARE_ABORT, 594, Set.of("tool.calls-0")),
                entry(13, Status.COMPLETE_ABORT, 594, Set.of()));

        assertThat(TransactionOutcomes.recorded(OPEN, ID, log)).hasValueSatisfying(outcome -> {
            assertThat(outcome.commit()).isFalse();
            assertThat(outcome.markerEpoch()).isEqualTo(594);
        });
    }

    @Test
    void theMarkersCarryTheLaterOfTheLogsAndThePartitionsCoordinatorEpoch() {
        List<Logged> log = new ArrayList<>(List.of(entry(10, Status.ONGOING, 592, Set.of("tool.calls-0")),
                entry(11, Status.PREPARE_COMMIT, 593, Set.of("tool.calls-0")),
                entry(12, Status.COMPLETE_COMMIT, 593, Set.of())));
        log.set(1, new Logged(11, 7, ID, 2, 593, Status.PREPARE_COMMIT, Set.of("tool.calls-0"), 2));

        assertThat(TransactionOutcomes.recorded(OPEN, ID, log).orElseThrow().coordinatorEpoch()).isEqualTo(7);
        assertThat(TransactionOutcomes.recorded(OPEN, ID, List.of(entry(10, Status.ONGOING, 592,
                Set.of("tool.calls-0")), entry(11, Status.COMPLETE_COMMIT, 593, Set.of())))
                .orElseThrow().coordinatorEpoch()).isEqualTo(3);
    }

    @Test
    void aTransactionStillBeingCompletedIsNotSettled() {
        List<Logged> prepared = List.of(entry(10, Status.ONGOING, 592, Set.of("tool.calls-0")),
                entry(11, Status.PREPARE_COMMIT, 593, Set.of("tool.calls-0")));

        assertThat(TransactionOutcomes.recorded(OPEN, ID, prepared)).isEmpty();
    }

    @Test
    void nothingIsGuessedWhereTheLogDoesNotTell() {
        // The transaction's own start is gone (compacted), only a later one's outcome is left.
        assertThat(TransactionOutcomes.recorded(OPEN, ID, List.of(entry(20, Status.COMPLETE_COMMIT, 594,
                Set.of())))).isEmpty();
        // The coordinator never had the partition in it.
        assertThat(TransactionOutcomes.recorded(OPEN, ID, List.of(entry(10, Status.ONGOING, 592,
                Set.of("tool.calls-1")), entry(11, Status.COMPLETE_COMMIT, 593, Set.of())))).isEmpty();
        // Another epoch, another producer, another transactional id.
        assertThat(TransactionOutcomes.recorded(OPEN, ID, List.of(entry(10, Status.ONGOING, 591,
                Set.of("tool.calls-0")), entry(11, Status.COMPLETE_COMMIT, 592, Set.of())))).isEmpty();
        assertThat(TransactionOutcomes.recorded(OPEN, ID, List.of(
                new Logged(10, 3, ID, 9, 592, Status.ONGOING, Set.of("tool.calls-0"), 2),
                new Logged(11, 3, ID, 9, 593, Status.COMPLETE_COMMIT, Set.of(), 2)))).isEmpty();
        assertThat(TransactionOutcomes.recorded(OPEN, "other", List.of(entry(10, Status.ONGOING, 592,
                Set.of("tool.calls-0")), entry(11, Status.COMPLETE_COMMIT, 593, Set.of())))).isEmpty();
        // Transactions version 1: one epoch spans many transactions, so the data cannot be told to one of them.
        assertThat(TransactionOutcomes.recorded(OPEN, ID, List.of(
                new Logged(10, 3, ID, 2, 592, Status.ONGOING, Set.of("tool.calls-0"), 1),
                new Logged(11, 3, ID, 2, 592, Status.COMPLETE_COMMIT, Set.of(), 1)))).isEmpty();
        // A completion that contradicts its preparation.
        assertThat(TransactionOutcomes.recorded(OPEN, ID, List.of(entry(10, Status.ONGOING, 592,
                Set.of("tool.calls-0")), entry(11, Status.PREPARE_COMMIT, 593, Set.of("tool.calls-0")),
                entry(12, Status.COMPLETE_ABORT, 593, Set.of())))).isEmpty();
    }

    @Test
    void theLogIsReadInOffsetOrderAndTheLastStartOfTheEpochCounts() {
        // More partitions added to the same transaction, records given out of order.
        List<Logged> log = List.of(entry(12, Status.PREPARE_ABORT, 593, Set.of("tool.calls-0", "x-0")),
                entry(11, Status.ONGOING, 592, Set.of("tool.calls-0", "x-0")),
                entry(13, Status.COMPLETE_ABORT, 593, Set.of()),
                entry(10, Status.ONGOING, 592, Set.of("tool.calls-0")));

        assertThat(TransactionOutcomes.recorded(OPEN, ID, log)).hasValueSatisfying(outcome ->
                assertThat(outcome.evidence()).contains("(offset 11)", "PREPARE_ABORT"));
    }

    private static Logged entry(long offset, Status status, int epoch, Set<String> partitions) {
        return new Logged(offset, 3, ID, 2, epoch, status, partitions, 2);
    }
}
