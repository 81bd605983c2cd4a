package io.cognitionstreams.health;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.DescribeTransactionsResult;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.telemetry.KafkaMetricsBridge;

/**
 * Looks for hanging transactions on the pipeline's topics and on the consumer offsets topic, every few seconds. One
 * of the app's own producers that its coordinator completed without writing all its markers (KAFKA-20734) is
 * settled as the coordinator recorded it in its log: the lost COMMIT or ABORT marker is written. Any other silent
 * past the limit and no longer in progress at its coordinator is judged: one the app may safely abort ({@link
 * HangingTransactions#judge}: its own producer's, settled at its coordinator, its consumer offsets hanging with its
 * records, nothing of it completed elsewhere) is aborted on every partition it hangs on, and logged at WARN with what
 * was discarded and why nothing is lost; any other is logged at ERROR with the reason and the commands that abort it,
 * for an operator. JMX: {@code cognition.health:type=transactions, application-id=<id>}, gauges {@code
 * hanging-transactions} (open now), {@code settled-transactions} and {@code aborted-transactions} (by this app since
 * it started).
 *
 * <p>With {@link #fencingDeparted}, it also fences the transactional ids of another instance of the app as soon as
 * that instance has left every one of the app's groups (its session expired: killed, or cut off), so that its open
 * transactions are aborted then rather than at their timeout; gauge {@code fenced-instances}.
 */
public final class TransactionWatch implements AutoCloseable {

    public static final String OFFSETS_TOPIC = "__consumer_offsets";
    private static final Logger LOG = LoggerFactory.getLogger(TransactionWatch.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    /** The fencing loop looks every half second: a look that takes longer is given up and made again. */
    private static final Duration FENCE_TIMEOUT = Duration.ofSeconds(10);
    /** States in which a transaction is open or its markers are still being written. */
    private static final Set<TransactionState> IN_FLIGHT = Set.of(TransactionState.ONGOING,
            TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE);
    private static final Duration DRAIN_LOOK = Duration.ofMillis(100);
    /** An open transaction written to this recently is not looked up in its coordinator's log yet. */
    private static final Duration SETTLE_GRACE = Duration.ofSeconds(5);
    /** States in which a coordinator writes no more markers for the producer's last transaction. */
    private static final Set<TransactionState> SETTLED = Set.of(TransactionState.EMPTY,
            TransactionState.COMPLETE_COMMIT, TransactionState.COMPLETE_ABORT);

    private final Admin admin;
    private final Map<String, Object> client;
    private final String bootstrapServers;
    private final List<String> topics;
    private final Duration maxTransactionTimeout;
    private final Predicate<String> ours;
    private final boolean abort;
    private final AtomicInteger aborted = new AtomicInteger();
    private final AtomicInteger fencedInstances = new AtomicInteger();
    private final AtomicInteger settled = new AtomicInteger();
    private final Metrics metrics;
    private final ScheduledExecutorService scheduler;
    private final Set<OpenTransaction> reported = new HashSet<>();
    /** Abandoned transactions whose outcome the coordinator's log did not tell, said once each. */
    private final Set<OpenTransaction> untold = new HashSet<>();
    private volatile List<OpenTransaction> hanging = List.of();
    private String lastFenceFailure;
    private String lastLogFailure;
    /** The watched partitions' leaders at the last look; null for a partition without one. */
    private Map<TopicPartition, Node> leaders = Map.of();

    /**
     * @param maxTransactionTimeout the broker's transaction.max.timeout.ms (15 min by default): a transaction silent
     *                              for longer can only be hanging
     * @param ours                  whether a transactional id is one of the app's own producers'
     * @param abort                 abort what may safely be aborted; otherwise only report
     */
    public TransactionWatch(Map<String, Object> client, String applicationId, String bootstrapServers,
                            Collection<String> topics, Duration maxTransactionTimeout, Predicate<String> ours,
                            boolean abort) {
        this.admin = Admin.create(client);
        this.client = Map.copyOf(client);
        this.bootstrapServers = bootstrapServers;
        this.topics = new ArrayList<>(topics);
        this.topics.add(OFFSETS_TOPIC);
        this.maxTransactionTimeout = maxTransactionTimeout;
        this.ours = ours;
        this.abort = abort;
        this.metrics = new Metrics(new MetricConfig(), List.of(new JmxReporter(), new KafkaMetricsBridge()), Time.SYSTEM,
                new KafkaMetricsContext("cognition.health"));
        metrics.addMetric(metrics.metricName("hanging-transactions", "transactions",
                        "Transactions open on the pipeline's partitions for longer than any timeout allows",
                        Map.of("application-id", applicationId)),
                (Gauge<Integer>) (config, now) -> hanging.size());
        metrics.addMetric(metrics.metricName("aborted-transactions", "transactions",
                        "Hanging transactions of its own producers the app aborted since it started",
                        Map.of("application-id", applicationId)),
                (Gauge<Integer>) (config, now) -> aborted.get());
        metrics.addMetric(metrics.metricName("settled-transactions", "transactions",
                        "Hanging transactions of its own producers the app settled as their coordinator recorded "
                                + "them since it started", Map.of("application-id", applicationId)),
                (Gauge<Integer>) (config, now) -> settled.get());
        metrics.addMetric(metrics.metricName("fenced-instances", "transactions",
                        "Departed instances of the app whose transactional ids this one fenced since it started",
                        Map.of("application-id", applicationId)),
                (Gauge<Integer>) (config, now) -> fencedInstances.get());
        // Two threads: a look for hanging transactions (every partition) must not hold up the fencing loop.
        this.scheduler = Executors.newScheduledThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "transaction-watch");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Checks every {@code interval} from now on. */
    public TransactionWatch every(Duration interval) {
        scheduler.scheduleWithFixedDelay(this::checkQuietly, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * From now on, every {@code interval}, looks at the app's groups and fences the transactional ids of each other
     * instance gone from all of them ({@link DepartedInstances}). Under exactly-once that loses and doubles nothing:
     * the aborted transaction is redone by whoever owns its partitions now.
     */
    public TransactionWatch fencingDeparted(DepartedInstances departed, Duration interval) {
        scheduler.scheduleWithFixedDelay(() -> fenceDepartedQuietly(departed), interval.toMillis(),
                interval.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** One look at the groups; fences the instances found gone. Only the fencing loop calls it. */
    void fenceDeparted(DepartedInstances departed) throws InterruptedException, ExecutionException,
            TimeoutException {
        Map<String, KafkaFuture<ConsumerGroupDescription>> described = admin.describeConsumerGroups(
                departed.groups()).describedGroups();
        Map<String, List<DepartedInstances.Member>> members = new HashMap<>();
        for (var group : described.entrySet()) {
            try {
                members.put(group.getKey(), group.getValue().get(FENCE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .members().stream()
                        .map(member -> new DepartedInstances.Member(member.clientId(), member.groupInstanceId()))
                        .toList());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                    throw e;
                }
                // No such group (yet, or at all: the executor's when no instance runs one): nobody is in it.
                members.put(group.getKey(), List.of());
            }
        }
        for (DepartedInstances.Departure gone : departed.observe(members)) {
            if (gone.transactionalIds().isEmpty()) {
                // Nothing to fence (its members' client ids were not Kafka Streams' own): neither logged nor counted
                // as a fence, and not looked at again.
                LOG.info("instance {} has no member left in any of the app's groups (last in {}), but none of its "
                        + "transactional ids can be told: its open transactions end at their timeout",
                        gone.instance(), gone.lastGroups());
                departed.fenced(gone);
                continue;
            }
            // Said before the call: the coordinator starts aborting an open transaction at the first request
            // (answering "concurrent transactions" until it is done), and the call returns only once every id is
            // fenced, seconds later at times.
            LOG.info("fencing the transactional ids {} of instance {}: it has no member left in any of the app's "
                    + "groups (last in {}), so its open transactions are aborted now instead of at their timeout; "
                    + "whoever owns their partitions now redoes them", gone.transactionalIds(), gone.instance(),
                    gone.lastGroups());
            long fencing = System.nanoTime();
            admin.fenceProducers(gone.transactionalIds()).all().get(FENCE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            departed.fenced(gone);
            fencedInstances.incrementAndGet();
            LOG.info("fenced instance {} ({} ms)", gone.instance(), (System.nanoTime() - fencing) / 1_000_000);
        }
    }

    private void fenceDepartedQuietly(DepartedInstances departed) {
        try {
            fenceDeparted(departed);
            lastFenceFailure = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // The broker's transaction timeout still ends them; the next look tries again. Said once per cause,
            // not twice a second.
            String cause = e.toString();
            if (!cause.equals(lastFenceFailure)) {
                LOG.warn("could not look for departed instances or fence them, will try again: {}", cause);
            }
            lastFenceFailure = cause;
        }
    }

    /**
     * One look: the hanging transactions now, returned as they were found. Those of the app's own producers whose
     * coordinator recorded their outcome are settled as recorded, those the app may abort are aborted (when it is
     * to act), and each other new one is logged.
     */
    public synchronized List<OpenTransaction> check() throws InterruptedException, ExecutionException,
            TimeoutException {
        List<HangingTransactions.Sighting> sightings = new ArrayList<>();
        List<OpenTransaction> open = openTransactions(sightings);
        List<OpenTransaction> settledNow = abort ? settleAsRecorded(open) : List.of();
        open.removeAll(settledNow);
        List<OpenTransaction> silent = new ArrayList<>(HangingTransactions.hanging(open, Instant.now(),
                maxTransactionTimeout));
        silent.removeAll(inProgress(silent));
        // Looked at again after their coordinators were: a live transaction seen open a moment ago has ended since
        // (the app's last a few milliseconds), and its coordinator may have been seen on its next one already.
        List<OpenTransaction> found = new ArrayList<>(stillOpen(silent));
        List<OpenTransaction> left = new ArrayList<>(found);
        if (!found.isEmpty()) {
            for (HangingTransactions.Verdict verdict : HangingTransactions.judge(found, sightings,
                    coordinators(found), ours, OFFSETS_TOPIC)) {
                if (verdict.abort() && abort) {
                    abort(verdict);
                    left.removeAll(verdict.partitions());
                } else {
                    report(verdict);
                }
            }
        }
        reported.retainAll(left);
        hanging = left;
        found.addAll(settledNow);
        return found;
    }

    /**
     * Settles, as its coordinator decided it, each open transaction of the app's own producers that its
     * coordinator has finished with, although its markers never reached this partition (KAFKA-20734): the
     * coordinator's log ({@link CoordinatorLog}) says whether it committed or aborted it ({@link
     * TransactionOutcomes}), and the marker it lost is written ({@link TransactionMarkers}). No timeout needs to
     * pass: a coordinator done with a transaction sends none of its markers any more. One it is not done with, or
     * whose log does not tell, is left to the judgment below.
     *
     * @return the transactions settled
     */
    private List<OpenTransaction> settleAsRecorded(List<OpenTransaction> open) throws InterruptedException,
            ExecutionException, TimeoutException {
        Map<OpenTransaction, String> abandoned = abandoned(open, ours);
        List<OpenTransaction> done = List.copyOf(abandoned.keySet());
        if (done.isEmpty()) {
            return List.of();
        }
        Instant since = done.stream().map(OpenTransaction::lastWrite).min(Instant::compareTo).orElseThrow()
                .minus(maxTransactionTimeout).minus(SETTLE_GRACE);
        List<TransactionOutcomes.Logged> log;
        try {
            log = CoordinatorLog.read(client, admin, abandoned.values().stream().distinct().toList(), since,
                    CALL_TIMEOUT);
        } catch (ExecutionException | RuntimeException e) {
            String cause = e.toString();
            if (!cause.equals(lastLogFailure)) {
                LOG.warn("cannot read {} to tell how the transactions {} were decided, so they are judged as any "
                        + "other: {}", CoordinatorLog.TOPIC, done, cause);
            }
            lastLogFailure = cause;
            return List.of();
        }
        Map<OpenTransaction, TransactionOutcomes.Outcome> outcomes = new LinkedHashMap<>();
        for (OpenTransaction transaction : done) {
            Optional<TransactionOutcomes.Outcome> outcome = TransactionOutcomes.recorded(transaction,
                    abandoned.get(transaction), log);
            if (outcome.isPresent()) {
                outcomes.put(transaction, outcome.get());
            } else if (untold.add(transaction)) {
                LOG.info("the transaction {} of {} is open though its coordinator is done with it, and {} does not "
                        + "tell how it ended ({} records of it read since {}): it is judged as any other",
                        transaction, abandoned.get(transaction), CoordinatorLog.TOPIC, log.stream()
                                .filter(entry -> entry.transactionalId().equals(abandoned.get(transaction)))
                                .count(), since);
            }
        }
        untold.retainAll(done);
        if (outcomes.isEmpty()) {
            return List.of();
        }
        // Looked at again after the log was read: markers that arrived meanwhile leave nothing to do.
        Set<OpenTransaction> stillOpen = new HashSet<>(stillOpen(List.copyOf(outcomes.keySet())));
        List<OpenTransaction> settledNow = new ArrayList<>();
        try (TransactionMarkers markers = new TransactionMarkers(client, CALL_TIMEOUT)) {
            for (var entry : outcomes.entrySet()) {
                OpenTransaction transaction = entry.getKey();
                TransactionOutcomes.Outcome outcome = entry.getValue();
                TopicPartition partition = new TopicPartition(transaction.topic(), transaction.partition());
                if (!stillOpen.contains(transaction) || leaders.get(partition) == null) {
                    LOG.info("not settling {} now: {}", transaction, stillOpen.contains(transaction)
                            ? "its partition has no leader" : "it is not open any more as it was");
                    continue;
                }
                try {
                    markers.write(transaction, outcome, leaders.get(partition));
                } catch (IOException | RuntimeException e) {
                    LOG.warn("could not settle the hanging transaction {} as its coordinator recorded it ({}), "
                            + "will try again: {}", transaction, outcome.commit() ? "committed" : "aborted",
                            e.toString());
                    continue;
                }
                settled.incrementAndGet();
                settledNow.add(transaction);
                LOG.warn("settled the hanging transaction of producer {} epoch {} ({}) on {}-{} as its "
                        + "coordinator recorded it: {}. Wrote the {} marker its coordinator had lost (the broker "
                        + "took the partition for deleted while it had no leader, KAFKA-20734); {} says so: {}",
                        transaction.producerId(), transaction.producerEpoch(), abandoned.get(transaction),
                        transaction.topic(), transaction.partition(), outcome.commit() ? "committed" : "aborted",
                        outcome.commit() ? "COMMIT" : "ABORT", CoordinatorLog.TOPIC, outcome.evidence());
            }
        }
        return settledNow;
    }

    /**
     * The transactions open on the watched partitions now that their coordinator has finished with (under
     * transactions version 2): none of their markers will come any more, so they stay open until someone writes
     * them. For the long runs, which count them; the app settles its own (every look).
     */
    public synchronized List<OpenTransaction> abandoned() throws InterruptedException, ExecutionException,
            TimeoutException {
        return List.copyOf(abandoned(openTransactions(new ArrayList<>()), id -> true).keySet());
    }

    /**
     * Of {@code open}, those silent for a moment whose producer's transactional id is {@code which} and whose
     * coordinator went past them, each with that id.
     */
    private Map<OpenTransaction, String> abandoned(List<OpenTransaction> open, Predicate<String> which)
            throws InterruptedException, ExecutionException, TimeoutException {
        Instant now = Instant.now();
        List<OpenTransaction> quiet = open.stream()
                .filter(transaction -> Duration.between(transaction.lastWrite(), now).compareTo(SETTLE_GRACE) > 0)
                .toList();
        Map<OpenTransaction, String> abandoned = new LinkedHashMap<>();
        coordinatorsNow(quiet, which).forEach((transaction, seen) -> {
            if (pastIt(transaction.producerEpoch(), seen.now().producerEpoch(), seen.now().state())) {
                abandoned.put(transaction, seen.transactionalId());
            }
        });
        // Still open after its coordinator was seen past it: a coordinator writes every marker before it
        // completes, so none will come. One closed meanwhile was only seen open before its markers arrived.
        abandoned.keySet().retainAll(stillOpen(List.copyOf(abandoned.keySet())));
        return abandoned;
    }

    /** Those of {@code open} that are open now exactly as they were seen, looked at again. */
    private List<OpenTransaction> stillOpen(List<OpenTransaction> open) throws InterruptedException,
            ExecutionException, TimeoutException {
        if (open.isEmpty()) {
            return List.of();
        }
        Set<OpenTransaction> now = new HashSet<>(openTransactions(open.stream()
                .map(transaction -> new TopicPartition(transaction.topic(), transaction.partition())).distinct()
                .toList(), new ArrayList<>()));
        return open.stream().filter(now::contains).toList();
    }

    /** The transactional id of an open transaction's producer, and what its coordinator says of that id now. */
    private record Seen(String transactionalId, TransactionDescription now) {
    }

    /**
     * For each of {@code open} whose producer a coordinator knows under an id {@code which} accepts: that id and
     * its transaction now (DescribeTransactions), if it is still the same producer's.
     */
    private Map<OpenTransaction, Seen> coordinatorsNow(List<OpenTransaction> open, Predicate<String> which)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (open.isEmpty()) {
            return Map.of();
        }
        Map<Long, HangingTransactions.Coordinator> coordinators = coordinators(open);
        List<String> ids = coordinators.values().stream().map(HangingTransactions.Coordinator::transactionalId)
                .filter(which).distinct().toList();
        Map<String, TransactionDescription> described = new HashMap<>();
        DescribeTransactionsResult descriptions = admin.describeTransactions(ids);
        for (String id : ids) {
            try {
                described.put(id, descriptions.description(id).get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                // Gone from its coordinator since it was listed: nothing to tell from.
            }
        }
        Map<OpenTransaction, Seen> seen = new LinkedHashMap<>();
        for (OpenTransaction transaction : open) {
            HangingTransactions.Coordinator coordinator = coordinators.get(transaction.producerId());
            TransactionDescription current = coordinator == null ? null
                    : described.get(coordinator.transactionalId());
            if (current != null && current.producerId() == transaction.producerId()) {
                seen.put(transaction, new Seen(coordinator.transactionalId(), current));
            }
        }
        return seen;
    }

    /**
     * Of {@code open}, those their coordinator still has in progress: open at that epoch, or being completed.
     * It writes their markers, or aborts them at their timeout, itself: none of them hangs, however old the
     * timestamps of its records (Kafka Streams gives an output its input's time, so a transaction written a moment
     * ago while the app catches up has records of hours ago).
     */
    private List<OpenTransaction> inProgress(List<OpenTransaction> open) throws InterruptedException,
            ExecutionException, TimeoutException {
        List<OpenTransaction> held = new ArrayList<>();
        coordinatorsNow(open, id -> true).forEach((transaction, seen) -> {
            int epoch = seen.now().producerEpoch();
            TransactionState state = seen.now().state();
            int openEpoch = transaction.producerEpoch();
            if ((state == TransactionState.ONGOING && epoch == openEpoch)
                    || (completing(state) && epoch >= openEpoch && epoch <= openEpoch + 2)) {
                held.add(transaction);
            }
        });
        return held;
    }

    /**
     * Whether a coordinator now at {@code epoch} in {@code state} is done with the producer's transaction of
     * {@code openEpoch}: it went past it (transactions version 2 bumps the epoch at every end) and is not writing
     * its markers, which it does in a prepare state at most two epochs on (one more when it aborted on a timeout).
     */
    private static boolean pastIt(int openEpoch, int epoch, TransactionState state) {
        return epoch > openEpoch && !(completing(state) && epoch <= openEpoch + 2);
    }

    private static boolean completing(TransactionState state) {
        return state == TransactionState.PREPARE_COMMIT || state == TransactionState.PREPARE_ABORT
                || state == TransactionState.PREPARE_EPOCH_FENCE;
    }

    private void abort(HangingTransactions.Verdict verdict) throws InterruptedException, ExecutionException,
            TimeoutException {
        // Looked at again once its coordinator was seen done with it: a marker on its way meanwhile closed it.
        if (!stillOpen(verdict.partitions()).containsAll(verdict.partitions())) {
            return;
        }
        for (OpenTransaction transaction : verdict.partitions()) {
            admin.abortTransaction(abortSpec(transaction)).all().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        aborted.incrementAndGet();
        LOG.warn("aborted the hanging transaction of producer {} epoch {} ({}): discarded its records on {}, "
                + "each from the offset given; nothing is lost because {}", verdict.producerId(),
                verdict.producerEpoch(), verdict.transactionalId().orElse("?"), verdict.partitions(), verdict.reason());
    }

    private void report(HangingTransactions.Verdict verdict) {
        if (!reported.addAll(verdict.partitions())) {
            return;
        }
        LOG.error("hanging transaction of producer {} epoch {} on {}: read_committed readers of these partitions "
                        + "and exactly-once consumers of them stop here until it is aborted. Not aborted by the app: "
                        + "{}. Check with `kafka-transactions.sh --bootstrap-server {} find-hanging --broker-id "
                        + "<leader>`; an operator who judges it safe aborts it on every partition with: {}",
                verdict.producerId(), verdict.producerEpoch(), verdict.partitions(), abort ? verdict.reason()
                        : "aborting is turned off (--no-abort-hanging-transactions)", bootstrapServers,
                String.join(" ; ", verdict.partitions().stream()
                        .map(transaction -> transaction.abortCommand(bootstrapServers)).toList()));
    }

    /** What the coordinators say of the hanging transactions' producers, for those they know. */
    private Map<Long, HangingTransactions.Coordinator> coordinators(List<OpenTransaction> found)
            throws InterruptedException, ExecutionException, TimeoutException {
        Set<Long> producers = new HashSet<>();
        found.forEach(transaction -> producers.add(transaction.producerId()));
        Map<Long, HangingTransactions.Coordinator> known = new HashMap<>();
        for (TransactionListing listing : admin.listTransactions(new ListTransactionsOptions()
                .filterProducerIds(producers)).all().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            known.put(listing.producerId(), new HangingTransactions.Coordinator(listing.transactionalId(),
                    SETTLED.contains(listing.state())));
        }
        return known;
    }

    /** What Admin#abortTransaction needs to close {@code transaction} on its partition. */
    public static AbortTransactionSpec abortSpec(OpenTransaction transaction) {
        return new AbortTransactionSpec(new TopicPartition(transaction.topic(), transaction.partition()),
                transaction.producerId(), (short) transaction.producerEpoch(), transaction.coordinatorEpoch());
    }

    /**
     * Waits until no transaction of the app's own producers is open or being completed at its coordinator
     * (ListTransactions), at most {@code limit}: what a clean stop does once the app's clients are closed and before
     * the embedded broker stops, so that no marker is still on its way when the broker goes (docs/operations.md,
     * "Stopping"). A transaction a closed producer left open ends at its timeout, when the coordinator aborts it.
     *
     * @return whether none was left in time; those left are logged at WARN
     */
    public boolean awaitNoneInFlight(Duration limit) throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + limit.toNanos();
        boolean said = false;
        while (true) {
            List<TransactionListing> open;
            try {
                open = admin.listTransactions(new ListTransactionsOptions().filterStates(IN_FLIGHT)).all()
                        .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream()
                        .filter(listing -> ours.test(listing.transactionalId()))
                        .toList();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("could not list the app's transactions, so cannot tell whether any is still open: {}",
                        e.toString());
                return false;
            }
            long waited = (System.nanoTime() - started) / 1_000_000;
            if (open.isEmpty()) {
                LOG.info("no transaction of the app is open or being completed ({} ms)", waited);
                return true;
            }
            String which = String.join(", ", open.stream()
                    .map(listing -> listing.transactionalId() + " " + listing.state()).toList());
            if (System.nanoTime() > deadline) {
                LOG.warn("{} transactions of the app still open or being completed after {} ms: {}", open.size(),
                        waited, which);
                return false;
            }
            if (!said) {
                LOG.info("waiting up to {} ms for {} transactions of the app to complete: {}", limit.toMillis(),
                        open.size(), which);
                said = true;
            }
            Thread.sleep(DRAIN_LOOK.toMillis());
        }
    }

    /** The hanging transactions the last check found. */
    public List<OpenTransaction> hanging() {
        return hanging;
    }

    private void checkQuietly() {
        try {
            check();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warn("could not look for hanging transactions, will try again: {}", e.toString());
        }
    }

    /** The open transactions on every partition watched; the partitions' leaders are kept in {@link #leaders}. */
    private List<OpenTransaction> openTransactions(List<HangingTransactions.Sighting> sightings)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, Node> found = new HashMap<>();
        for (var described : admin.describeTopics(topics).topicNameValues().entrySet()) {
            TopicDescription topic;
            try {
                topic = described.getValue().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                // Not created yet (the offsets topic appears with the first consumer group).
                continue;
            }
            topic.partitions().forEach(partition -> found.put(new TopicPartition(topic.name(),
                    partition.partition()), partition.leader()));
        }
        leaders = found;
        return openTransactions(new ArrayList<>(found.keySet()), sightings);
    }

    private List<OpenTransaction> openTransactions(List<TopicPartition> partitions,
                                                   List<HangingTransactions.Sighting> sightings)
            throws InterruptedException, ExecutionException, TimeoutException {
        DescribeProducersResult result = admin.describeProducers(partitions);
        List<OpenTransaction> open = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            DescribeProducersResult.PartitionProducerState state;
            try {
                state = result.partitionResult(partition).get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                // A partition without a leader right now: the next check sees it.
                LOG.debug("no producer state for {}: {}", partition, e.getCause().toString());
                continue;
            }
            for (ProducerState producer : state.activeProducers()) {
                sightings.add(new HangingTransactions.Sighting(partition.topic(), partition.partition(),
                        producer.producerId(), producer.producerEpoch()));
                if (producer.currentTransactionStartOffset().isPresent()) {
                    open.add(new OpenTransaction(partition.topic(), partition.partition(), producer.producerId(),
                            producer.producerEpoch(), producer.coordinatorEpoch().orElse(-1),
                            producer.currentTransactionStartOffset().getAsLong(),
                            Instant.ofEpochMilli(producer.lastTimestamp())));
                }
            }
        }
        return open;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        metrics.close();
        admin.close(Duration.ofSeconds(5));
    }
}
