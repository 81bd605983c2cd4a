package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;

class HangingTransactionsTest {

    private static final Instant NOW = Instant.parse("2026-11-23T03:00:00Z");
    private static final String OFFSETS = "__consumer_offsets";
    private static final HangingTransactions.Coordinator OURS_SETTLED =
            new HangingTransactions.Coordinator("app-model-worker-1", true);

    @Test
    void onlyTransactionsSilentForLongerThanTheMaximumTimeoutAreHanging() {
        OpenTransaction fresh = open("llm.outputs", 0, NOW.minusSeconds(30));
        OpenTransaction atTheLimit = open("llm.outputs", 1, NOW.minus(Duration.ofMinutes(15)));
        OpenTransaction stale = open("llm.outputs", 2, NOW.minus(Duration.ofMinutes(16)));
        OpenTransaction offsets = open("__consumer_offsets", 7, NOW.minus(Duration.ofHours(2)));

        assertThat(HangingTransactions.hanging(List.of(fresh, atTheLimit, stale, offsets), NOW,
                Duration.ofMinutes(15))).containsExactly(offsets, stale);
        assertThat(HangingTransactions.hanging(List.of(fresh), NOW, Duration.ofSeconds(10))).containsExactly(fresh);
    }

    @Test
    void tellsTheOperatorTheCommandThatAbortsIt() {
        OpenTransaction transaction = new OpenTransaction("llm.outputs", 2, 2, 820, 0, 2136, NOW);

        assertThat(transaction.abortCommand("b1:9092")).isEqualTo(
                "kafka-transactions.sh --bootstrap-server b1:9092 abort --topic llm.outputs --partition 2 "
                        + "--start-offset 2136");
        assertThat(transaction).hasToString("llm.outputs-2 producer 2 epoch 820 from offset 2136 (last write "
                + NOW + ")");
    }

    @Test
    void theAppAbortsOnlyItsOwnSettledTransactionThatHangsWithItsOffsetsAndNothingElseOfIt() {
        OpenTransaction outputs = new OpenTransaction("llm.outputs", 1, 2, 820, 0, 2136, NOW);
        OpenTransaction offsets = new OpenTransaction(OFFSETS, 7, 2, 820, 0, 90, NOW);
        List<OpenTransaction> hanging = List.of(outputs, offsets);
        // Earlier transactions of the producer (lower epochs) elsewhere, and other producers, change nothing.
        List<HangingTransactions.Sighting> seen = List.of(new HangingTransactions.Sighting("llm.outputs", 1, 2, 820),
                new HangingTransactions.Sighting("llm.outputs", 0, 2, 819),
                new HangingTransactions.Sighting("llm.outputs", 2, 5, 900));

        assertThat(HangingTransactions.judge(hanging, seen, Map.of(2L, OURS_SETTLED), id -> id.startsWith("app-"),
                OFFSETS)).singleElement().satisfies(verdict -> {
                    assertThat(verdict.abort()).isTrue();
                    assertThat(verdict.partitions()).containsExactly(outputs, offsets);
                    assertThat(verdict.transactionalId()).contains("app-model-worker-1");
                    assertThat(verdict.reason()).contains("its inputs are read and answered again");
                });
    }

    @Test
    void everyOtherHangingTransactionIsLeftToAnOperatorWithTheReason() {
        OpenTransaction outputs = new OpenTransaction("llm.outputs", 1, 2, 820, 0, 2136, NOW);
        OpenTransaction offsets = new OpenTransaction(OFFSETS, 7, 2, 820, 0, 90, NOW);
        List<OpenTransaction> both = List.of(outputs, offsets);

        assertThat(refusal(both, List.of(), Map.of())).contains("no transaction coordinator knows producer 2");
        assertThat(refusal(both, List.of(), Map.of(2L, new HangingTransactions.Coordinator("other-app-1", true))))
                .contains("transactional id other-app-1 is not the app's");
        assertThat(refusal(both, List.of(), Map.of(2L, new HangingTransactions.Coordinator("app-model-worker-1",
                false)))).contains("still has a transaction of app-model-worker-1 in progress");
        assertThat(refusal(List.of(outputs), List.of(), Map.of(2L, OURS_SETTLED)))
                .contains("it holds no consumer offsets");
        // Closed at its epoch elsewhere (a marker written there), or gone on to a later epoch: not safe.
        assertThat(refusal(both, List.of(new HangingTransactions.Sighting("llm.outputs", 0, 2, 820)),
                Map.of(2L, OURS_SETTLED))).contains("is on llm.outputs-0 at epoch 820 with no transaction open");
        assertThat(refusal(both, List.of(new HangingTransactions.Sighting("tool.calls", 3, 2, 821)),
                Map.of(2L, OURS_SETTLED))).contains("is on tool.calls-3 at epoch 821");
    }

    @Test
    void eachProducerAndEpochIsJudgedOnItsOwn() {
        OpenTransaction first = new OpenTransaction(OFFSETS, 7, 2, 820, 0, 90, NOW);
        OpenTransaction other = new OpenTransaction(OFFSETS, 7, 3, 11, 0, 95, NOW);

        assertThat(HangingTransactions.judge(List.of(first, other), List.of(), Map.of(2L, OURS_SETTLED),
                id -> id.startsWith("app-"), OFFSETS)).extracting(HangingTransactions.Verdict::producerId,
                HangingTransactions.Verdict::abort).containsExactly(tuple(2L, true), tuple(3L, false));
    }

    private static String refusal(List<OpenTransaction> hanging, List<HangingTransactions.Sighting> seen,
                                  Map<Long, HangingTransactions.Coordinator> coordinators) {
        HangingTransactions.Verdict verdict = HangingTransactions.judge(hanging, seen, coordinators,
                id -> id.startsWith("app-"), OFFSETS).get(0);
        assertThat(verdict.abort()).as(verdict.reason()).isFalse();
        return verdict.reason();
    }

    private static OpenTransaction open(String topic, int partition, Instant lastWrite) {
        return new OpenTransaction(topic, partition, 1, 1, 0, 100, lastWrite);
    }
}
