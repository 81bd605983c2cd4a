package io.cognitionstreams.worker;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key-ordered, exactly-once, parallel consume-process-produce loop, for work that waits on something slow and
 * asynchronous (a model call): up to {@link Limits#maxInFlight} records in flight at once, at most one per key, so
 * one session's records are processed in order while many sessions' run side by side. The consumer keeps polling
 * while the work runs, so the group never takes the partitions away because a call is slow.
 *
 * <p>Exactly once with completions out of order: outputs and offsets commit in one transaction (fenced by the group
 * generation, KIP-447), every {@link Limits#commitInterval} or so. A partition's committed offset is its first record
 * not done; the done records above it are listed in the commit's metadata ({@link OffsetMetadata}), and their
 * outputs are in the same transaction. After a crash or a rebalance the new owner reads from the committed offset and
 * skips what the metadata says is done, so no output is written twice; work that was in flight is done again, its
 * outputs never having been committed. This is Confluent's Parallel Consumer's design, built here because that
 * library stays on kafka-clients 3.9 (docs/model.md).
 *
 * <p>Bounded: at most {@link Limits#maxHeld} records fetched and not committed (buffered behind their key, in flight
 * or done); past that, and for a partition whose done records no longer fit in the metadata, the partitions are
 * paused (the consumer keeps polling, returning nothing for them) until work finishes.
 *
 * <p>Rebalances: revoked partitions' done work is committed first, what is still running for them is cancelled;
 * assigned partitions start from their committed offset and metadata.
 *
 * <p>Side effects that must not run twice ({@link Work#afterCommit}): a record's marks are committed first, in the
 * next transaction, and its work starts only once that transaction committed. A mark whose transaction aborted, or
 * whose partition went before it was sent, never starts its work: the record is read again from the last commit.
 */
public final class ParallelLoop implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ParallelLoop.class);
    private static final Duration IDLE_POLL = Duration.ofMillis(100);
    /** How soon a finished call is noticed while calls are in flight. */
    private static final Duration BUSY_POLL = Duration.ofMillis(5);

    /** The work of each record. Called on the loop's thread only. */
    public interface Handler {
        /**
         * Starts one record's work, once every earlier record with its key is done. Returns at once: what takes
         * long runs in the work's future.
         */
        Work start(ConsumerRecord<byte[], byte[]> record);

        /**
         * A dead letter for a record whose work failed in a way the handler did not foresee (a bug): such a record
         * is neither lost nor retried forever.
         */
        ProducerRecord<byte[], byte[]> failed(ConsumerRecord<byte[], byte[]> record, Throwable error);

        /**
         * The key whose records are processed one at a time, in offset order: the record's key by default (a
         * session's packets). Null orders the record with nothing, for work whose records are independent of each
         * other (a council role's proposals, all keyed by one council).
         */
        default byte[] orderKey(ConsumerRecord<byte[], byte[]> record) {
            return record.key();
        }

        /** Partitions now this loop's: called before their first records are started. */
        default void assigned(Collection<TopicPartition> partitions) {
        }

        /**
         * Partitions no longer this loop's: their done work is committed and the rest cancelled. After an aborted
         * transaction the assigned partitions are revoked and assigned again: they start over from the last commit.
         */
        default void revoked(Collection<TopicPartition> partitions) {
        }

        /** The records at {@code offsets} of {@code partition} are done and their outputs committed. */
        default void committed(TopicPartition partition, List<Long> offsets) {
        }

        /**
         * How long a revocation waits for the revoked partitions' running work to finish, so that it commits rather
         * than being cancelled and done again by the next owner (none by default: redoing costs only time).
         */
        default Duration revocationGrace() {
            return Duration.ZERO;
        }
    }

    /**
     * One record's work: outputs at once, or a future of them (cancelled when the record's partition goes), or marks
     * to commit before the work starts.
     */
    public static final class Work {
        private final List<ProducerRecord<byte[], byte[]>> outputs;
        private final CompletableFuture<List<ProducerRecord<byte[], byte[]>>> future;
        private final List<ProducerRecord<byte[], byte[]>> marks;
        private final Supplier<CompletableFuture<List<ProducerRecord<byte[], byte[]>>>> then;

        private Work(List<ProducerRecord<byte[], byte[]>> outputs,
                     CompletableFuture<List<ProducerRecord<byte[], byte[]>>> future,
                     List<ProducerRecord<byte[], byte[]>> marks,
                     Supplier<CompletableFuture<List<ProducerRecord<byte[], byte[]>>>> then) {
            this.outputs = outputs;
            this.future = future;
            this.marks = marks;
            this.then = then;
        }

        public static Work done(List<ProducerRecord<byte[], byte[]>> outputs) {
            return new Work(List.copyOf(outputs), null, null, null);
        }

        public static Work later(CompletableFuture<List<ProducerRecord<byte[], byte[]>>> outputs) {
            return new Work(null, outputs, null, null);
        }

        /**
         * {@code marks} are committed first (in the next transaction, without the record's offset); {@code work}
         * starts, on the loop's thread, once that transaction committed, and never when it did not.
         */
        public static Work afterCommit(List<ProducerRecord<byte[], byte[]>> marks,
                                       Supplier<CompletableFuture<List<ProducerRecord<byte[], byte[]>>>> work) {
            return new Work(null, null, List.copyOf(marks), work);
        }
    }

    /**
     * @param maxInFlight    records whose work runs at once
     * @param maxHeld        records fetched and not yet committed (waiting behind their key, running, or done), past
     *                       which consumption pauses
     * @param commitInterval how often done work is committed
     * @param metadataBudget characters of commit metadata per partition, within the brokers'
     *                       {@code offset.metadata.max.bytes} (4096 by default)
     */
    public record Limits(int maxInFlight, int maxHeld, Duration commitInterval, int metadataBudget) {

        public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofMillis(50);
        public static final int DEFAULT_METADATA_BUDGET = 3000;

        public Limits {
            if (maxInFlight < 1 || maxHeld < maxInFlight) {
                throw new IllegalArgumentException("need 1 <= maxInFlight <= maxHeld, got " + maxInFlight + " and "
                        + maxHeld);
            }
        }

        /** {@code maxInFlight} at once, as many again waiting behind them, the default cadence and budget. */
        public static Limits of(int maxInFlight) {
            return new Limits(maxInFlight, 2 * maxInFlight + 100, DEFAULT_COMMIT_INTERVAL, DEFAULT_METADATA_BUDGET);
        }
    }

    private final String name;
    private final String topic;
    private final Handler handler;
    private final Limits limits;
    private final WorkerClients clients;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong committed = new AtomicLong();
    private final AtomicInteger inFlightGauge = new AtomicInteger();
    private final AtomicInteger heldGauge = new AtomicInteger();
    private final ConcurrentLinkedQueue<Finished> finished = new ConcurrentLinkedQueue<>();

    // The loop thread's own state.
    private KafkaConsumer<byte[], byte[]> consumer;
    private KafkaProducer<byte[], byte[]> producer;
    private boolean healthy;
    private final Map<TopicPartition, PartitionBook<List<ProducerRecord<byte[], byte[]>>>> books = new HashMap<>();
    /** Each key's records not done yet, the first of them started or ready to start. */
    private final Map<Lane, Deque<Item>> lanes = new HashMap<>();
    /** First records of their key, waiting for a place in flight. */
    private final Deque<Item> ready = new ArrayDeque<>();
    /** Started records whose marks wait for the next transaction, in flight already. */
    private final List<Item> marking = new ArrayList<>();
    private int inFlight;
    private int changed;
    private long lastCommit = System.nanoTime();

    /**
     * @param clientConfig   bootstrap servers and any security settings, shared by consumer and producer
     * @param instanceId     this process's name across restarts: its static member id and transactional id
     * @param sessionTimeout how long a worker that dies for good keeps its partitions
     */
    public ParallelLoop(String name, Map<String, Object> clientConfig, String groupId, String instanceId,
                        String topic, Limits limits, Duration sessionTimeout, Handler handler) {
        this.name = name;
        this.topic = topic;
        this.handler = handler;
        this.limits = limits;
        // The loop polls every few milliseconds whatever runs, so Kafka's default poll interval is never near.
        this.clients = new WorkerClients(clientConfig, groupId, instanceId, Math.min(limits.maxHeld(), 500),
                Duration.ofMinutes(5), sessionTimeout, Duration.ZERO);
    }

    /**
     * Until closed. A failure the loop cannot handle in place (fenced, a broker away longer than max.block.ms)
     * starts it over with new clients from the last commit, as Kafka Streams replaces a failed thread: what was in
     * flight is done again, nothing committed is repeated.
     */
    @Override
    public void run() {
        while (running.get()) {
            consumer = clients.consumer();
            producer = clients.producer();
            healthy = true;
            try {
                producer.initTransactions();
                consumer.subscribe(List.of(topic), new Listener());
                while (running.get()) {
                    consumer.poll(pollTimeout()).forEach(this::admit);
                    drainFinished();
                    startReady();
                    if (commitDue() && !commit(true)) {
                        Set<TopicPartition> assigned = consumer.assignment();
                        handler.revoked(assigned);
                        rewind(assigned, true);
                        handler.assigned(assigned);
                    }
                    pauseOrResume();
                }
                // Stopping: what is done is committed, so a successor does not do it again; nothing new starts.
                drainFinished();
                commit(false);
            } catch (RuntimeException e) {
                healthy = false;
                if (running.get()) {
                    LOG.error("{} failed, starting again from the last commit: {}", name, e.toString());
                    sleepQuietly(Duration.ofSeconds(1));
                }
            } finally {
                try {
                    consumer.close(WorkerClients.closing(running.get()));
                } catch (RuntimeException e) {
                    LOG.warn("{}: closing the consumer failed: {}", name, e.toString());
                }
                drop(new HashSet<>(books.keySet()));
                producer.close(Duration.ofSeconds(5));
            }
        }
    }

    private Duration pollTimeout() {
        if (changed > 0) {
            long due = lastCommit + limits.commitInterval().toNanos() - System.nanoTime();
            return Duration.ofNanos(Math.max(Math.min(due, BUSY_POLL.toNanos()), 0));
        }
        return inFlight > 0 ? BUSY_POLL : IDLE_POLL;
    }

    private void admit(ConsumerRecord<byte[], byte[]> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        PartitionBook<List<ProducerRecord<byte[], byte[]>>> book = books.get(partition);
        if (book == null) {
            return;
        }
        if (!book.fetched(record.offset())) {
            changed++; // done before: only the committed offset moves past it
            return;
        }
        Item item = new Item(record, partition, Lane.of(record, handler.orderKey(record)));
        Deque<Item> lane = lanes.computeIfAbsent(item.lane, key -> new ArrayDeque<>());
        lane.add(item);
        if (lane.size() == 1) {
            ready.add(item);
        }
    }

    private void startReady() {
        while (inFlight < limits.maxInFlight() && !ready.isEmpty()) {
            Item item = ready.poll();
            Work work;
            try {
                work = handler.start(item.record);
            } catch (RuntimeException e) {
                LOG.error("{}: starting the work of {} failed", name, item, e);
                work = Work.done(List.of(handler.failed(item.record, e)));
            }
            if (work.marks != null) {
                inFlight++;
                item.marking = work;
                marking.add(item);
            } else if (work.future == null) {
                finish(item, work.outputs);
            } else {
                inFlight++;
                running(item, work.future);
            }
        }
        inFlightGauge.set(inFlight);
    }

    private void running(Item item, CompletableFuture<List<ProducerRecord<byte[], byte[]>>> future) {
        item.future = future;
        future.whenComplete((outputs, error) -> finished.add(new Finished(item, outputs, error)));
    }

    /** Starts the work of the records whose marks just committed. */
    private void startMarked(List<Item> marked) {
        for (Item item : marked) {
            Work work = item.marking;
            item.marking = null;
            try {
                running(item, work.then.get());
            } catch (RuntimeException e) {
                LOG.error("{}: starting the work of {} failed after its marks committed", name, item, e);
                inFlight--;
                finish(item, List.of(handler.failed(item.record, e)));
            }
        }
        inFlightGauge.set(inFlight);
    }

    private void drainFinished() {
        for (Finished done = finished.poll(); done != null; done = finished.poll()) {
            Item item = done.item;
            if (!item.live) {
                continue; // its partition went while it ran
            }
            inFlight--;
            List<ProducerRecord<byte[], byte[]>> outputs;
            if (done.error == null) {
                outputs = List.copyOf(done.outputs);
            } else {
                Throwable cause = done.error instanceof CompletionException && done.error.getCause() != null
                        ? done.error.getCause() : done.error;
                LOG.error("{}: the work of {} failed", name, item, cause);
                outputs = List.of(handler.failed(item.record, cause));
            }
            finish(item, outputs);
        }
        inFlightGauge.set(inFlight);
    }

    /** The record's outputs wait for the next commit; the next record of its key may start. */
    private void finish(Item item, List<ProducerRecord<byte[], byte[]>> outputs) {
        item.live = false;
        books.get(item.partition).done(item.record.offset(), outputs);
        changed++;
        Deque<Item> lane = lanes.get(item.lane);
        lane.poll();
        if (lane.isEmpty()) {
            lanes.remove(item.lane);
        } else {
            ready.add(lane.peek());
        }
    }

    /** Marks are committed at once: their work waits for them. */
    private boolean commitDue() {
        return !marking.isEmpty()
                || changed > 0 && System.nanoTime() - lastCommit >= limits.commitInterval().toNanos();
    }

    /**
     * Commits every partition's done work with its offset and metadata in one transaction, and with {@code marks}
     * the marks waiting, whose work then starts. False when the transaction was aborted: nothing of it is visible,
     * and the loop reads again from the last commit.
     */
    private boolean commit(boolean marks) {
        lastCommit = System.nanoTime();
        changed = 0;
        Map<TopicPartition, PartitionBook.Commit<List<ProducerRecord<byte[], byte[]>>>> plans = new HashMap<>();
        books.forEach((partition, book) -> book.plan(limits.metadataBudget())
                .ifPresent(plan -> plans.put(partition, plan)));
        List<Item> marked = marks ? List.copyOf(marking) : List.of();
        if (plans.isEmpty() && marked.isEmpty()) {
            return true;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        producer.beginTransaction();
        try {
            plans.forEach((partition, plan) -> {
                plan.outputs().forEach(outputs -> outputs.forEach(output -> WorkerClients.send(producer, output)));
                offsets.put(partition, new OffsetAndMetadata(plan.base(), plan.metadata()));
            });
            marked.forEach(item -> item.marking.marks.forEach(mark -> WorkerClients.send(producer, mark)));
            if (!offsets.isEmpty()) {
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
            producer.commitTransaction();
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
            throw e;
        } catch (KafkaException e) {
            LOG.warn("{} transaction aborted, reading again from the last commit: {}", name, e.getMessage());
            producer.abortTransaction();
            return false;
        }
        plans.forEach((partition, plan) -> {
            books.get(partition).committed(plan);
            committed.addAndGet(plan.offsets().size());
            handler.committed(partition, plan.offsets());
        });
        marking.removeAll(marked);
        startMarked(marked);
        return true;
    }

    /**
     * Partitions start (again) from their last commit: what was done is skipped, the rest processed.
     *
     * @param seek whether to move the consumer there (after an abort; a new assignment starts there anyway)
     */
    private void rewind(Collection<TopicPartition> partitions, boolean seek) {
        drop(partitions);
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> last = consumer.committed(new HashSet<>(partitions));
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata commit = last.get(partition);
            if (commit == null) {
                books.put(partition, PartitionBook.fresh());
                if (seek) {
                    consumer.seekToBeginning(List.of(partition));
                }
                continue;
            }
            OffsetMetadata.Above above = OffsetMetadata.decode(commit.metadata()).orElseGet(() -> {
                LOG.warn("{}: the commit of {} at {} has metadata in another form ({}): the records above it are "
                        + "processed again", name, partition, commit.offset(), commit.metadata());
                return OffsetMetadata.Above.NOTHING;
            });
            books.put(partition, PartitionBook.restored(commit.offset(), above));
            if (seek) {
                consumer.seek(partition, commit.offset());
            }
        }
    }

    /** Forgets the partitions' records: what runs is cancelled, nothing of theirs is committed from here. */
    private void drop(Collection<TopicPartition> partitions) {
        Set<TopicPartition> gone = new HashSet<>(partitions);
        for (Iterator<Map.Entry<Lane, Deque<Item>>> it = lanes.entrySet().iterator(); it.hasNext(); ) {
            Deque<Item> lane = it.next().getValue();
            if (!gone.contains(lane.peek().partition)) {
                continue;
            }
            for (Item item : lane) {
                item.live = false;
                if (item.marking != null) {
                    inFlight--; // its marks were never sent
                }
                if (item.future != null) {
                    inFlight--;
                    item.future.cancel(true);
                }
            }
            it.remove();
        }
        ready.removeIf(item -> gone.contains(item.partition));
        marking.removeIf(item -> gone.contains(item.partition));
        gone.forEach(books::remove);
        inFlightGauge.set(inFlight);
    }

    /** Pauses every partition while too much is held, and a partition whose done records no longer fit. */
    private void pauseOrResume() {
        int held = books.values().stream().mapToInt(PartitionBook::held).sum();
        heldGauge.set(held);
        Set<TopicPartition> wanted = new HashSet<>();
        for (Map.Entry<TopicPartition, PartitionBook<List<ProducerRecord<byte[], byte[]>>>> entry
                : books.entrySet()) {
            if (held >= limits.maxHeld() || entry.getValue().cramped()) {
                wanted.add(entry.getKey());
            }
        }
        Set<TopicPartition> paused = consumer.paused();
        if (wanted.equals(paused)) {
            return;
        }
        Set<TopicPartition> resume = new HashSet<>(paused);
        resume.removeAll(wanted);
        consumer.resume(resume);
        consumer.pause(wanted);
    }

    /** Waits, at most {@code grace}, until no work of {@code partitions} runs. */
    private void awaitRunning(Collection<TopicPartition> partitions, Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        Set<TopicPartition> going = new HashSet<>(partitions);
        while (System.nanoTime() < deadline && lanes.values().stream().map(Deque::peek).anyMatch(item ->
                going.contains(item.partition) && item.future != null && !item.future.isDone())) {
            sleepQuietly(BUSY_POLL);
        }
    }

    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (healthy && !partitions.isEmpty()) {
                awaitRunning(partitions, handler.revocationGrace());
                drainFinished();
                commit(false); // marks of the partitions kept are sent by the next commit
            }
            drop(partitions);
            handler.revoked(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            drop(partitions); // another member may own them already: nothing of theirs may commit
            handler.revoked(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            rewind(partitions, false);
            handler.assigned(partitions);
        }
    }

    /** Records committed since the start (work done and its outputs written). */
    public long committed() {
        return committed.get();
    }

    /** Records whose work runs now. */
    public int inFlight() {
        return inFlightGauge.get();
    }

    /** Records fetched and not committed yet. */
    public int held() {
        return heldGauge.get();
    }

    @Override
    public void close() {
        running.set(false);
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The order records of one key keep: a record without a key is a key of its own. */
    private record Lane(int partition, Object key) {
        static Lane of(ConsumerRecord<byte[], byte[]> record, byte[] key) {
            return new Lane(record.partition(), key == null ? (Object) record.offset() : ByteBuffer.wrap(key));
        }
    }

    private static final class Item {
        final ConsumerRecord<byte[], byte[]> record;
        final TopicPartition partition;
        final Lane lane;
        CompletableFuture<List<ProducerRecord<byte[], byte[]>>> future;
        /** Its work while its marks wait for a transaction. */
        Work marking;
        /** Until it finished or its partition went: a late completion of an item no longer live is ignored. */
        volatile boolean live = true;

        Item(ConsumerRecord<byte[], byte[]> record, TopicPartition partition, Lane lane) {
            this.record = record;
            this.partition = partition;
            this.lane = lane;
        }

        @Override
        public String toString() {
            return partition + "@" + record.offset();
        }
    }

    private record Finished(Item item, List<ProducerRecord<byte[], byte[]>> outputs, Throwable error) {
    }
}
