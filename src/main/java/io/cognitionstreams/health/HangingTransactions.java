package io.cognitionstreams.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * Tells hanging transactions from open ones. A transaction the broker lost the markers of stays open on its
 * partitions for good: read_committed readers stop at its first offset and an exactly-once consumer waits forever
 * for stable offsets (seen after a broker restart, docs/reliability.md). No client can close it; an operator can,
 * with KIP-664's tooling, once told where it is.
 */
public final class HangingTransactions {

    /**
     * A producer's transaction open on one partition, as DescribeProducers reports it.
     *
     * @param lastWrite when the producer last wrote to the partition, so the transaction is at least this old
     */
    public record OpenTransaction(String topic, int partition, long producerId, int producerEpoch,
                                  int coordinatorEpoch, long startOffset, Instant lastWrite) {

        /** The kafka-transactions.sh command that aborts it on this partition. */
        public String abortCommand(String bootstrapServers) {
            return "kafka-transactions.sh --bootstrap-server " + bootstrapServers + " abort --topic " + topic
                    + " --partition " + partition + " --start-offset " + startOffset;
        }

        @Override
        public String toString() {
            return topic + "-" + partition + " producer " + producerId + " epoch " + producerEpoch + " from offset "
                    + startOffset + " (last write " + lastWrite + ")";
        }
    }

    private HangingTransactions() {
    }

    /**
     * The transactions silent for longer than {@code maxTransactionTimeout}: no producer may keep a transaction open
     * that long (the broker's transaction.max.timeout.ms caps every producer's timeout, and the coordinator aborts an
     * expired one), so such a transaction will never be closed by anyone but an operator.
     */
    public static List<OpenTransaction> hanging(List<OpenTransaction> open, Instant now,
                                                Duration maxTransactionTimeout) {
        return open.stream()
                .filter(transaction -> Duration.between(transaction.lastWrite(), now).compareTo(maxTransactionTimeout) > 0)
                .sorted(Comparator.comparing(OpenTransaction::topic).thenComparingInt(OpenTransaction::partition))
                .toList();
    }
}
