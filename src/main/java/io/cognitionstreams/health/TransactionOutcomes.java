package io.cognitionstreams.health;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;

/**
 * What a transaction coordinator recorded of a transaction that hangs on a partition, read from its log
 * ({@code __transaction_state}), so that the transaction is settled as it was decided, never guessed. A
 * coordinator that dropped a partition's markers (KAFKA-20734: it takes a partition without a leader for deleted)
 * still completes the transaction in its log; the records are there, only the markers are missing. Plain Java.
 *
 * <p>Only transactions of transactions version 2 (KIP-890, Kafka 4's default) are told: there every transaction
 * has an epoch of its own, so the data a producer wrote at epoch E on a partition belongs to exactly one
 * transaction, the one the coordinator opened at E. Under versions 0 and 1 one epoch spans many transactions, and
 * the log cannot tell which of them the data belongs to.
 */
public final class TransactionOutcomes {

    /** A transaction's state as the coordinator logs it (Kafka's TransactionState, by name). */
    public enum Status {
        EMPTY, ONGOING, PREPARE_COMMIT, PREPARE_ABORT, COMPLETE_COMMIT, COMPLETE_ABORT, DEAD, PREPARE_EPOCH_FENCE;

        boolean outcome() {
            return this == PREPARE_COMMIT || this == PREPARE_ABORT || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
        }

        boolean commit() {
            return this == PREPARE_COMMIT || this == COMPLETE_COMMIT;
        }

        boolean complete() {
            return this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
        }
    }

    /**
     * One record of the coordinator's log.
     *
     * @param offset             where it is in its partition of the log
     * @param coordinatorEpoch   the log partition's leader epoch when it was written: the coordinator's epoch
     * @param partitions         the transaction's partitions then, as {@code topic-partition}
     * @param transactionVersion the client's transactions version (0, 1, 2)
     */
    public record Logged(long offset, int coordinatorEpoch, String transactionalId, long producerId,
                         int producerEpoch, Status status, Set<String> partitions, int transactionVersion) {
    }

    /**
     * How the coordinator decided a transaction, and the markers it would have written.
     *
     * @param commit           commit, else abort
     * @param markerEpoch      the producer epoch of its markers (under version 2 the one it bumped to at the end)
     * @param coordinatorEpoch the coordinator epoch its markers carry
     * @param evidence         which records of the log say so
     */
    public record Outcome(boolean commit, int markerEpoch, int coordinatorEpoch, int transactionVersion,
                          String evidence) {
    }

    private TransactionOutcomes() {
    }

    /**
     * The outcome the coordinator recorded for {@code open}, once it is done with it (no marker of it will come any
     * more); empty when its log does not tell or it is still completing it. The transaction is the one the
     * coordinator had ongoing at the open transaction's epoch with its partition among its own (an {@code ONGOING}
     * record; compaction keeps every record after the last one it kept of an id, so with it comes everything the
     * coordinator wrote after it). Its outcome is the first prepare or complete record after it; the coordinator is
     * done once that is a complete record, or once it wrote anything after the prepare.
     *
     * @param log the coordinator's records, of any transactional id, in log order within each log partition
     */
    public static Optional<Outcome> recorded(OpenTransaction open, String transactionalId, List<Logged> log) {
        String partition = open.topic() + "-" + open.partition();
        List<Logged> ofId = log.stream().filter(entry -> entry.transactionalId().equals(transactionalId))
                .sorted(Comparator.comparingLong(Logged::offset)).toList();
        int start = -1;
        for (int i = 0; i < ofId.size(); i++) {
            Logged entry = ofId.get(i);
            if (entry.status() == Status.ONGOING && entry.producerId() == open.producerId()
                    && entry.producerEpoch() == open.producerEpoch() && entry.partitions().contains(partition)) {
                start = i;
            }
        }
        if (start < 0 || ofId.get(start).transactionVersion() < 2) {
            return Optional.empty();
        }
        for (int i = start + 1; i < ofId.size(); i++) {
            Logged entry = ofId.get(i);
            if (entry.status() == Status.PREPARE_EPOCH_FENCE
                    || (entry.status() == Status.ONGOING && entry.producerEpoch() == open.producerEpoch())) {
                continue;
            }
            if (!entry.status().outcome() || entry.producerId() != open.producerId()) {
                return Optional.empty();
            }
            if (!entry.status().complete()) {
                // Prepared: done only once the coordinator wrote its completion, of the same outcome.
                if (i + 1 >= ofId.size() || !ofId.get(i + 1).status().complete()
                        || ofId.get(i + 1).status().commit() != entry.status().commit()) {
                    return Optional.empty();
                }
            }
            Logged began = ofId.get(start);
            return Optional.of(new Outcome(entry.status().commit(), entry.producerEpoch(),
                    Math.max(entry.coordinatorEpoch(), open.coordinatorEpoch()), entry.transactionVersion(),
                    "ONGOING at epoch " + began.producerEpoch() + " with " + partition + " (offset "
                            + began.offset() + "), then " + entry.status() + " at epoch " + entry.producerEpoch()
                            + " (offset " + entry.offset() + ")"));
        }
        return Optional.empty();
    }
}
