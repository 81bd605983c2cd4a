package io.cognitionstreams.executor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.gatekeeper.DecisionSignatures;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LedgerState;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolLedgerEntry;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.telemetry.IntervalLog;
import io.cognitionstreams.telemetry.Tracing;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.LedgerKey;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.worker.ParallelLoop;
import io.cognitionstreams.worker.WorkerLetters;

/**
 * The executor: reads tool.decisions, runs each approved call whose signature verifies, and writes its result to
 * tool.outcomes, on a {@link ParallelLoop} keyed by session (a tool can run for minutes, which no stream thread may):
 * up to {@code threads} calls of different sessions run at once, a session's calls run in order, and the loop keeps
 * polling while they run, so a slow call holds up only its own session's later calls. A revoked partition's running
 * calls may finish first (up to the call timeout, two minutes at most), so a rebalance does not report them unknown. At most once per call id,
 * through the changelogged ledger tool.ledger ({@link CallLedger}):
 * <ol>
 *   <li>A side-effecting call's STARTED entry is committed before the tool starts ({@link ParallelLoop.Work#afterCommit}).</li>
 *   <li>Its result, its FINISHED entry and the decision's offset commit together afterwards.</li>
 *   <li>A decision read again with only STARTED behind it (the process died in between) gets an UNKNOWN_OUTCOME
 *       result and is not run again, unless the tool is retry-safe (read-only or idempotent), which runs again.</li>
 * </ol>
 */
public final class ExecutorWorker implements Runnable, AutoCloseable, ParallelLoop.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(ExecutorWorker.class);
    private static final String COMPONENT = "executor";
    /** How long a restore waits for a transaction still open on the ledger (ours, from before a crash). */
    private static final Duration OPEN_TRANSACTION_WAIT = Duration.ofSeconds(15);
    private static final int IN_FLIGHT_PER_THREAD = 4;
    /** Within Kafka's five-minute poll interval, which the loop's rebalance callback runs inside. */
    private static final Duration MOST_REVOCATION_GRACE = Duration.ofMinutes(2);

    private final Topics topics;
    private final ToolExecution execution;
    private final DecisionSignatures.Verifier verifier;
    private final String groupId;
    private final ParallelLoop loop;
    private final ExecutorService pool;
    /** The ledger as committed, and the calls this process took on since: a second decision with an id is refused. */
    private final CallLedger ledger = new CallLedger();
    private final LedgerRestore restore;
    /**
     * Calls that ran, by their decision's partition and offset, until their result commits: a decision read again
     * after an aborted transaction gets the result it had, not an unknown outcome.
     */
    private final Map<String, Settled> settled = new ConcurrentHashMap<>();
    private final IntervalLog refused = new IntervalLog(LOG, "decisions refused (not the gatekeeper's, or "
            + "duplicates)", Duration.ofMinutes(1));
    private final IntervalLog unknown = new IntervalLog(LOG, "calls reported as unknown outcome after a restart",
            Duration.ofMinutes(1));
    private final IntervalLog timeTravel = new IntervalLog(LOG, "approvals of replayed or forked turns skipped "
            + "(never executed; the gatekeeper answered them)", Duration.ofMinutes(1));
    private final AtomicInteger executed = new AtomicInteger();

    /**
     * @param instanceId     this process's name across restarts ({@link ParallelLoop})
     * @param threads        calls run at once, one session each
     * @param sessionTimeout how long a worker that dies for good keeps its partitions
     */
    public ExecutorWorker(Map<String, Object> clientConfig, String groupId, String instanceId, Topics topics,
                          ToolExecution execution, DecisionSignatures.Verifier verifier, int threads,
                          Duration sessionTimeout) {
        this.topics = topics;
        this.execution = execution;
        this.verifier = verifier;
        this.groupId = groupId;
        this.restore = new LedgerRestore(Map.copyOf(clientConfig), topics, OPEN_TRANSACTION_WAIT);
        this.pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "executor-call");
            thread.setDaemon(true);
            return thread;
        });
        // More calls in flight than threads: a call waits for its STARTED mark's transaction before it runs, and
        // the marks of many calls share one, so the threads are not left idle while marks commit.
        this.loop = new ParallelLoop(COMPONENT, clientConfig, groupId, instanceId, topics.toolDecisions.name(),
                ParallelLoop.Limits.of(IN_FLIGHT_PER_THREAD * threads), sessionTimeout, this);
    }

    @Override
    public void run() {
        loop.run();
    }

    /** Tool runs since the start. */
    public int executed() {
        return executed.get();
    }

    @Override
    public void assigned(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            ledger.assign(partition.partition());
            restore.read(partition.partition(), (key, entry) -> {
                if (entry == null) {
                    ledger.forget(partition.partition(), key);
                } else {
                    ledger.record(partition.partition(), entry);
                }
            });
        }
    }

    @Override
    public void revoked(Collection<TopicPartition> partitions) {
        partitions.forEach(partition -> ledger.revoke(partition.partition()));
    }

    /** Calls running when their partition goes finish and commit, rather than turn into unknown outcomes. */
    @Override
    public Duration revocationGrace() {
        return execution.callTimeout().compareTo(MOST_REVOCATION_GRACE) < 0 ? execution.callTimeout()
                : MOST_REVOCATION_GRACE;
    }

    @Override
    public void committed(TopicPartition partition, List<Long> offsets) {
        offsets.forEach(offset -> settled.remove(partition.partition() + "@" + offset));
    }

    @Override
    public ParallelLoop.Work start(ConsumerRecord<byte[], byte[]> record) {
        Instant now = Instant.now();
        Step step = plan(record, now);
        Run run = step.run;
        if (run == null) {
            return ParallelLoop.Work.done(step.outputs);
        }
        if (run.outcome != null) {
            return ParallelLoop.Work.done(outputs(step));
        }
        // Taken from here on: a later decision with this call id is a duplicate (an aborted transaction or a new
        // assignment reads the ledger again).
        ToolLedgerEntry started = CallLedger.started(run.entry, run.runs, now);
        ledger.record(step.partition, started);
        if (run.retrySafe) {
            return ParallelLoop.Work.later(execute(step));
        }
        // Durable before the side effect starts: a crash from here on is reported, never repeated.
        return ParallelLoop.Work.afterCommit(List.of(ledgerRecord(step, started)), () -> execute(step));
    }

    @Override
    public ProducerRecord<byte[], byte[]> failed(ConsumerRecord<byte[], byte[]> record, Throwable error) {
        return WorkerLetters.deadLetter(topics, record, ErrorKind.PROCESSING, error, COMPONENT, groupId);
    }

    /** Runs the call on the pool; its outputs once it ran. */
    private CompletableFuture<List<ProducerRecord<byte[], byte[]>>> execute(Step step) {
        Run run = step.run;
        return CompletableFuture.supplyAsync(() -> {
            Instant startedAt = Instant.now();
            Outcome outcome;
            try {
                outcome = execution.run(run.call, run.target);
            } catch (RuntimeException e) {
                LOG.error("tool call {} failed in the executor", run.call.getCallId(), e);
                outcome = Outcome.unknown("the executor failed during the call: " + e, 0);
            }
            executed.incrementAndGet();
            run.startedAt = startedAt;
            run.outcome = ToolExecution.result(run.call, outcome, ToolExecution.executor(run.target), Instant.now());
            settled.put(step.partition + "@" + step.offset, new Settled(run.outcome, startedAt));
            return outputs(step);
        }, pool);
    }

    /** What to do with one record; nothing runs yet. */
    private Step plan(ConsumerRecord<byte[], byte[]> record, Instant now) {
        Step step = new Step(record.topic(), record.partition(), record.offset());
        step.headers = record.headers();
        ToolDecision decision;
        try {
            decision = topics.toolDecisions.valueSerde().deserializer().deserialize(record.topic(), record.value());
            if (decision == null) {
                throw new InvalidRecordException("a tool decision is null (a tombstone is not a decision)");
            }
        } catch (RuntimeException e) {
            return step.letter(WorkerLetters.deadLetter(topics, record, ErrorKind.DESERIALIZATION, e,
                    COMPONENT, groupId));
        }
        if (decision.getVerdict() != Verdict.APPROVED) {
            return step; // the gatekeeper answered the denial itself
        }
        ToolCall call = decision.getCall();
        ToolTarget target = execution.target(call.getTool());
        if (target instanceof ToolTarget.Elsewhere) {
            return step; // another executor's tool
        }
        var problem = verifier.problem(decision);
        if (problem.isPresent()) {
            refused.warn(call.getCallId() + ": " + problem.get());
            return step.letter(WorkerLetters.deadLetter(topics, record, ErrorKind.VALIDATION,
                    new InvalidRecordException("refused to execute " + call.getTool() + " (call " + call.getCallId()
                            + "): " + problem.get()), COMPONENT, groupId));
        }
        if (call.getTimeTravel() == TimeTravel.REPLAY || call.getTimeTravel() == TimeTravel.FORK) {
            // Signed, so the gatekeeper marked it: it answered the call itself from the record (docs/timetravel.md).
            timeTravel.warn(call.getCallId() + " (" + call.getTimeTravel() + ")");
            return step;
        }
        if (call.getSessionId() == null || call.getSessionId().isBlank() || call.getCallId().isBlank()) {
            return step.letter(WorkerLetters.deadLetter(topics, record, ErrorKind.VALIDATION,
                    new InvalidRecordException("an approved call without a session or a call id"), COMPONENT,
                    groupId));
        }
        boolean retrySafe = execution.retrySafe(decision, target);
        String executor = ToolExecution.executor(target);
        CallLedger.Call entry = new CallLedger.Call(call, executor, record.offset());
        ToolLedgerEntry known = ledger.entry(record.partition(), call.getSessionId(), call.getCallId());
        int runs = known == null ? 1 : known.getRuns() + 1;
        Settled local = settled.get(record.partition() + "@" + record.offset());
        switch (ledger.plan(record.partition(), record.offset(), call.getSessionId(), call.getCallId(), retrySafe)) {
            case DONE -> {
                return step;
            }
            case DUPLICATE -> {
                refused.warn(call.getCallId() + ": duplicate");
                String why = known.getDecisionOffset() == LedgerRestore.UNREADABLE
                        ? "its ledger entry cannot be read, so whether it ran is unknown"
                        : "it was already executed (its decision is at offset " + known.getDecisionOffset() + ")";
                return step.letter(WorkerLetters.deadLetter(topics, record, ErrorKind.VALIDATION,
                        new InvalidRecordException("refused to execute call id " + call.getCallId() + ": " + why
                                + "; a session's call id runs at most once: give a new call a new id"), COMPONENT,
                        groupId));
            }
            case REPORT_UNKNOWN -> {
                if (local != null) {
                    return step.ran(new Run(call, target, entry, false, known.getRuns()), local);
                }
                unknown.warn(call.getCallId() + " (" + call.getTool() + ")");
                Instant startedAt = known.getStartedAt() == null ? now : known.getStartedAt();
                return step.ran(new Run(call, target, entry, false, known.getRuns()), new Settled(
                        ToolExecution.unknownOutcome(call, executor, startedAt, now), startedAt));
            }
            case RERUN -> {
                if (local != null) {
                    return step.ran(new Run(call, target, entry, true, known.getRuns()), local);
                }
                return step.run(new Run(call, target, entry, true, runs));
            }
            default -> {
                return step.run(new Run(call, target, entry, retrySafe, 1));
            }
        }
    }

    /** The call's result on tool.outcomes and its FINISHED entry, which commit with the decision's offset. */
    private List<ProducerRecord<byte[], byte[]>> outputs(Step step) {
        ToolResult result = step.run.outcome;
        Instant startedAt = step.run.startedAt;
        String name = topics.toolOutcomes.name();
        byte[] key = step.run.call.getSessionId().getBytes(StandardCharsets.UTF_8);
        byte[] value;
        try {
            value = topics.toolOutcomes.valueSerde().serializer().serialize(name, result);
        } catch (OutputGuard.RefusedOutputException e) {
            // Too big for the topic even capped (a huge error text): the call's result says so instead.
            value = topics.toolOutcomes.valueSerde().serializer().serialize(name, ToolResult.newBuilder(result)
                    .setText(null).setJson(null).setError("the result cannot be written: " + e.getMessage()).build());
        }
        Tracing.Hop hop = Tracing.continueFrom(step.topic, step.headers, startedAt == null ? result.getTimestamp()
                : startedAt).executedTool(step.run.call, result);
        ProducerRecord<byte[], byte[]> outcome = hop.inject(new ProducerRecord<>(name, key, value));
        hop.close(result.getTimestamp());
        return List.of(outcome, ledgerRecord(step, CallLedger.finished(step.run.entry, result.getStatus(),
                startedAt == null ? result.getTimestamp() : startedAt, step.run.runs, result.getTimestamp())));
    }

    /** Into the ledger partition of the decision's own partition, so a partition's owner finds it there. */
    private ProducerRecord<byte[], byte[]> ledgerRecord(Step step, ToolLedgerEntry entry) {
        String name = topics.toolLedger.name();
        return new ProducerRecord<>(name, step.partition,
                new LedgerKey(step.run.call.getSessionId(), step.run.call.getCallId()).text()
                        .getBytes(StandardCharsets.UTF_8),
                entry == null ? null : topics.toolLedger.valueSerde().serializer().serialize(name, entry));
    }

    @Override
    public void close() {
        loop.close();
        pool.shutdownNow();
    }

    /** Local knowledge of a call that ran and whose result has not committed yet. */
    private record Settled(ToolResult result, Instant startedAt) {
    }

    /** A call to run (or that ran) and its result once it has one. Written by one pool thread, then read. */
    private static final class Run {
        final ToolCall call;
        final ToolTarget target;
        final CallLedger.Call entry;
        final boolean retrySafe;
        final int runs;
        volatile ToolResult outcome;
        volatile Instant startedAt;

        Run(ToolCall call, ToolTarget target, CallLedger.Call entry, boolean retrySafe, int runs) {
            this.call = call;
            this.target = target;
            this.entry = entry;
            this.retrySafe = retrySafe;
            this.runs = runs;
        }
    }

    /** One decision and what it leads to. */
    private static final class Step {
        final String topic;
        final int partition;
        final long offset;
        final List<ProducerRecord<byte[], byte[]>> outputs = new ArrayList<>();
        Run run;
        /** The decision's headers: its trace context. */
        Headers headers;

        Step(String topic, int partition, long offset) {
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
        }

        Step letter(ProducerRecord<byte[], byte[]> letter) {
            outputs.add(letter);
            return this;
        }

        Step run(Run run) {
            this.run = run;
            return this;
        }

        Step ran(Run run, Settled settled) {
            this.run = run;
            run.outcome = settled.result;
            run.startedAt = settled.startedAt;
            return this;
        }

    }
}
