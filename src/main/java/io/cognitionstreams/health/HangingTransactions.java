package io.cognitionstreams.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Tells hanging transactions from open ones, and the ones the app may abort itself from those only an operator may.
 * A transaction the broker lost the markers of stays open on its partitions for good: read_committed readers stop
 * at its first offset and an exactly-once consumer waits forever for stable offsets (seen after a broker restart,
 * docs/reliability.md). No producer can close it; an abort marker written through the Admin API (KIP-664) can.
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

    /**
     * A producer as DescribeProducers lists it on one watched partition, whether or not a transaction of it is open
     * there.
     */
    public record Sighting(String topic, int partition, long producerId, int producerEpoch) {
    }

    /**
     * What the transaction coordinator says of a hanging producer, if it knows it (ListTransactions).
     *
     * @param transactionalId the transactional id the producer id belongs to now
     * @param settled         whether the coordinator is done with it (no transaction ongoing or being completed):
     *                        no marker will come from it any more
     */
    public record Coordinator(String transactionalId, boolean settled) {
    }

    /**
     * One hanging transaction (a producer id and epoch, on every partition it hangs on) and what to do with it.
     *
     * @param transactionalId the producer's transactional id, when the coordinator knows it
     * @param abort           whether the app may abort it itself; {@code reason} says why, or why not
     */
    public record Verdict(long producerId, int producerEpoch, Optional<String> transactionalId,
                          List<OpenTransaction> partitions, boolean abort, String reason) {
    }

    /** A producer at one epoch: one transaction. */
    private record Producer(long id, int epoch) {
    }

    private HangingTransactions() {
    }

    /**
     * Which hanging transactions the app may abort without losing or doubling anything: only a transaction that
     * <ol>
     *   <li>is one of the app's own producers' ({@code ours} accepts its transactional id), so no other
     *       application's data is touched;</li>
     *   <li>its coordinator has settled, so no marker is on its way that the abort could contradict;</li>
     *   <li>hangs on the consumer offsets too: the input positions it would have committed are discarded with its
     *       records, so its inputs are read and answered again, as after any aborted transaction;</li>
     *   <li>left no trace of itself or a later transaction anywhere else: its producer is listed on no other
     *       watched partition at its epoch or later. Another partition closed at that epoch (a marker written
     *       there, lost here) would keep records whose offsets the abort rewinds: doubled; a later epoch means the
     *       producer went on past it and may have committed positions beyond its inputs: lost.</li>
     * </ol>
     * Anything else is left to an operator, with the reason.
     */
    public static List<Verdict> judge(List<OpenTransaction> hanging, List<Sighting> sightings,
                                      Map<Long, Coordinator> coordinators, Predicate<String> ours,
                                      String offsetsTopic) {
        Map<Producer, List<OpenTransaction>> byTransaction = new LinkedHashMap<>();
        for (OpenTransaction transaction : hanging) {
            byTransaction.computeIfAbsent(new Producer(transaction.producerId(), transaction.producerEpoch()),
                    key -> new ArrayList<>()).add(transaction);
        }
        List<Verdict> verdicts = new ArrayList<>();
        byTransaction.forEach((key, partitions) -> {
            long producerId = key.id();
            int epoch = key.epoch();
            Optional<Coordinator> coordinator = Optional.ofNullable(coordinators.get(producerId));
            Optional<String> transactionalId = coordinator.map(Coordinator::transactionalId);
            String reason = refusal(producerId, epoch, partitions, sightings, coordinator, ours, offsetsTopic)
                    .orElse(null);
            verdicts.add(new Verdict(producerId, epoch, transactionalId, List.copyOf(partitions), reason == null,
                    reason != null ? reason : "producer " + producerId + " (" + transactionalId.get() + ") is the "
                            + "app's, its coordinator is done with it, and its consumer offsets hang with its "
                            + "records: the abort discards both, so its inputs are read and answered again"));
        });
        return verdicts;
    }

    private static Optional<String> refusal(long producerId, int epoch, List<OpenTransaction> partitions,
                                            List<Sighting> sightings, Optional<Coordinator> coordinator,
                                            Predicate<String> ours, String offsetsTopic) {
        if (coordinator.isEmpty()) {
            return Optional.of("no transaction coordinator knows producer " + producerId + ", so it cannot be "
                    + "shown to be the app's");
        }
        if (!ours.test(coordinator.get().transactionalId())) {
            return Optional.of("transactional id " + coordinator.get().transactionalId() + " is not the app's");
        }
        if (!coordinator.get().settled()) {
            return Optional.of("its coordinator still has a transaction of " + coordinator.get().transactionalId()
                    + " in progress");
        }
        if (partitions.stream().noneMatch(partition -> partition.topic().equals(offsetsTopic))) {
            return Optional.of("it holds no consumer offsets: its inputs may be committed as read, and its records "
                    + "would be lost");
        }
        Set<String> hangingOn = new HashSet<>();
        partitions.forEach(partition -> hangingOn.add(partition.topic() + "-" + partition.partition()));
        return sightings.stream()
                .filter(seen -> seen.producerId() == producerId && seen.producerEpoch() >= epoch
                        && !hangingOn.contains(seen.topic() + "-" + seen.partition()))
                .findFirst()
                .map(seen -> "producer " + producerId + " is on " + seen.topic() + "-" + seen.partition()
                        + " at epoch " + seen.producerEpoch() + " with no transaction open: part of it, or a later "
                        + "one, was completed, so an abort could lose or double records");
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
