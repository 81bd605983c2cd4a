package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;

class HangingTransactionsTest {

    private static final Instant NOW = Instant.parse("2026-11-23T03:00:00Z");

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

    private static OpenTransaction open(String topic, int partition, Instant lastWrite) {
        return new OpenTransaction(topic, partition, 1, 1, 0, 100, lastWrite);
    }
}
