package io.cognitionstreams.executor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
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
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.worker.TransactionalLoop;
import io.cognitionstreams.worker.WorkerLetters;

/**
 * The executor: reads tool.decisions, runs each approved call whose signature verifies, and writes its result to
 * tool.outcomes, on a {@link TransactionalLoop} (a tool can run for minutes, which no stream thread may). At most
 * once per call id, through the changelogged ledger tool.ledger ({@link CallLedger}):
 * <ol>
 *   <li>A side-effecting call's STARTED entry is committed before the tool starts.</li>
 *   <li>Its result, its FINISHED entry and the decision's offset commit together afterwards.</li>
 *   <li>A decision read again with only STARTED behind it (the process died in between) gets an UNKNOWN_OUTCOME
 *       result and is not run again, unless the tool is retry-safe (read-only or idempotent), which runs again.</li>
 * </ol>
 * Calls of different sessions run in parallel; a session's calls run in order. A batch plans by the call timeout:
 * a call that could not finish within the poll's budget is left for the next poll, so the group never takes the
 * partitions away mid-batch.
 */
public final class ExecutorWorker implements Runnable, AutoCloseable, TransactionalLoop.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(ExecutorWorker.class);
    private static final String COMPONENT = "executor";
    /** How long a restore waits for a transaction still open on the ledger (ours, from before a crash). */
    private static final Duration OPEN_TRANSACTION_WAIT = Duration.ofSeconds(15);

    private final Topics topics;
    private final ToolExecution execution;
    private final DecisionSignatures.Verifier verifier;
    private final String groupId;
    private final Map<String, Object> clientConfig;
    private final TransactionalLoop loop;
    private final ExecutorService pool;
    private final Duration budget;
    private final CallLedger ledger = new CallLedger();
    private final LedgerRestore restore;
    /** What this process knows better than the ledger topic: calls that ran (or never started) since. */
    private final Map<String, Settled> settled = new ConcurrentHashMap<>();
    /** Ledger entries of the transaction in flight, applied to {@link #ledger} once it commits. */
    private final List<Staged> staged = new ArrayList<>();
    private final IntervalLog refused = new IntervalLog(LOG, "decisions refused (not the gatekeeper's, or "
            + "duplicates)", Duration.ofMinutes(1));
    private final IntervalLog unknown = new IntervalLog(LOG, "calls reported as unknown outcome after a restart",
            Duration.ofMinutes(1));
    private final IntervalLog timeTravel = new IntervalLog(LOG, "approvals of replayed or forked turns skipped "
            + "(never executed; the gatekeeper answered them)", Duration.ofMinutes(1));
    private final AtomicInteger executed = new AtomicInteger();

    /**
     * @param instanceId     this process's name across restarts ({@link TransactionalLoop})
     * @param threads        calls run in parallel, one session each
     * @param maxPollRecords decisions per transaction
     * @param sessionTimeout how long a worker that dies for good keeps its partitions
     */
    public ExecutorWorker(Map<String, Object> clientConfig, String groupId, String instanceId, Topics topics,
                          ToolExecution execution, DecisionSignatures.Verifier verifier, int threads,
                          int maxPollRecords, Duration sessionTimeout) {
        this.topics = topics;
        this.execution = execution;
        this.verifier = verifier;
        this.groupId = groupId;
        this.clientConfig = Map.copyOf(clientConfig);
        // The group takes a partition away after this long without a poll: planned batches stay within half.
        Duration maxPollInterval = Duration.ofMinutes(5).compareTo(execution.callTimeout().multipliedBy(4)) > 0
                ? Duration.ofMinutes(5) : execution.callTimeout().multipliedBy(4);
        this.budget = maxPollInterval.dividedBy(2);
        this.restore = new LedgerRestore(this.clientConfig, topics, OPEN_TRANSACTION_WAIT);
        this.pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "executor-call");
            thread.setDaemon(true);
            return thread;
        });
        this.loop = new TransactionalLoop(COMPONENT, clientConfig, groupId, instanceId, topics.toolDecisions.name(),
                maxPollRecords, maxPollInterval, sessionTimeout, this);
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
            restore.read(partition.partition(), (callId, entry) -> ledger.record(partition.partition(), callId,
                    entry));
        }
    }

    @Override
    public void revoked(Collection<TopicPartition> partitions) {
        partitions.forEach(partition -> ledger.revoke(partition.partition()));
    }

    @Override
    public void committed() {
        staged.forEach(entry -> ledger.record(entry.partition, entry.callId, entry.entry));
        staged.forEach(entry -> settled.remove(entry.callId));
        staged.clear();
    }

    @Override
    public void aborted() {
        staged.clear();
    }

    @Override
    public Map<TopicPartition, Long> process(ConsumerRecords<byte[], byte[]> records,
                                             TransactionalLoop.Batch batch) {
        Instant start = Instant.now();
        List<Step> steps = new ArrayList<>();
        // The ledger learns of this batch's calls only once they are marked, after planning: within the batch, a
        // second decision with a call id is caught here.
        Map<String, Long> planned = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            steps.add(plan(record, start, planned));
        }
        List<Step> runs = steps.stream().filter(step -> step.run != null).toList();
        List<Step> marked = runs.stream().filter(step -> !step.run.retrySafe).toList();
        if (!marked.isEmpty()) {
            // Durable before any side effect starts: a crash from here on is reported, never repeated.
            for (Step step : marked) {
                batch.send(ledgerRecord(step, CallLedger.started(step.run.entry, step.run.runs, start)));
            }
            batch.commitNow();
            for (Step step : marked) {
                ledger.record(step.partition, step.run.call.getCallId(),
                        CallLedger.started(step.run.entry, step.run.runs, start));
            }
        }
        executeAll(runs, start);

        Map<TopicPartition, Long> leftAt = new HashMap<>();
        for (Step step : runs) {
            if (step.run.outcome == null) {
                leftAt.merge(new TopicPartition(step.topic, step.partition), step.offset, Math::min);
            }
        }
        for (Step step : steps) {
            Long left = leftAt.get(new TopicPartition(step.topic, step.partition));
            boolean ran = step.run != null && step.run.outcome != null;
            if (step.run != null && !ran) {
                if (!step.run.retrySafe) {
                    // Marked STARTED above but never started: unmark, so the next poll runs it.
                    settled.put(step.run.call.getCallId(), Settled.NOT_STARTED);
                    stage(batch, step, null);
                }
                continue;
            }
            if (!ran && left != null && step.offset >= left) {
                continue; // read again with the calls left for the next poll, and written then
            }
            step.outputs.forEach(batch::send);
            if (ran) {
                emit(batch, step, step.run.outcome, step.run.startedAt);
            }
        }
        return leftAt;
    }

    /** What to do with one record; nothing runs yet. */
    private Step plan(ConsumerRecord<byte[], byte[]> record, Instant now, Map<String, Long> planned) {
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
        Long first = planned.putIfAbsent(record.partition() + "/" + call.getCallId(), record.offset());
        if (first != null) {
            refused.warn(call.getCallId() + ": duplicate");
            return step.letter(WorkerLetters.deadLetter(topics, record, ErrorKind.VALIDATION,
                    new InvalidRecordException("refused to execute call id " + call.getCallId() + ": the decision "
                            + "at offset " + first + " carries it too; a call id runs at most once: give a new call a "
                            + "new id"), COMPONENT, groupId));
        }
        boolean retrySafe = execution.retrySafe(decision, target);
        String executor = ToolExecution.executor(target);
        CallLedger.Call entry = new CallLedger.Call(call, executor, record.offset());
        ToolLedgerEntry known = ledger.entry(record.partition(), call.getCallId());
        int runs = known == null ? 1 : known.getRuns() + 1;
        Settled local = settled.get(call.getCallId());
        switch (ledger.plan(record.partition(), record.offset(), call.getCallId(), retrySafe)) {
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
                                + "; a call id runs at most once: give a new call a new id"), COMPONENT, groupId));
            }
            case REPORT_UNKNOWN -> {
                if (local == Settled.NOT_STARTED) {
                    return step.run(new Run(call, target, entry, false, known.getRuns()));
                }
                if (local != null) {
                    return step.ran(new Run(call, target, entry, false, known.getRuns()), local);
                }
                unknown.warn(call.getCallId() + " (" + call.getTool() + ")");
                Instant startedAt = known.getStartedAt() == null ? now : known.getStartedAt();
                return step.ran(new Run(call, target, entry, false, known.getRuns()), new Settled(
                        ToolExecution.unknownOutcome(call, executor, startedAt, now), startedAt));
            }
            case RERUN -> {
                if (local != null && local != Settled.NOT_STARTED) {
                    return step.ran(new Run(call, target, entry, true, known.getRuns()), local);
                }
                return step.run(new Run(call, target, entry, true, runs));
            }
            default -> {
                return step.run(new Run(call, target, entry, retrySafe, 1));
            }
        }
    }

    /** Runs every planned call: sessions in parallel, each session's calls in order, within the batch's budget. */
    private void executeAll(List<Step> runs, Instant start) {
        Map<String, List<Step>> bySession = new LinkedHashMap<>();
        for (Step step : runs) {
            if (step.run.outcome == null) {
                bySession.computeIfAbsent(step.run.call.getSessionId(), session -> new ArrayList<>()).add(step);
            }
        }
        List<Future<?>> futures = new ArrayList<>();
        for (List<Step> session : bySession.values()) {
            futures.add(pool.submit(() -> {
                for (Step step : session) {
                    Duration elapsed = Duration.between(start, Instant.now());
                    if (elapsed.plus(execution.callTimeout()).compareTo(budget) > 0) {
                        return; // this and the session's later calls wait for the next poll
                    }
                    Instant startedAt = Instant.now();
                    Outcome outcome;
                    try {
                        outcome = execution.run(step.run.call, step.run.target);
                    } catch (RuntimeException e) {
                        LOG.error("tool call {} failed in the executor", step.run.call.getCallId(), e);
                        outcome = Outcome.unknown("the executor failed during the call: " + e, 0);
                    }
                    executed.incrementAndGet();
                    step.run.startedAt = startedAt;
                    step.run.outcome = ToolExecution.result(step.run.call, outcome,
                            ToolExecution.executor(step.run.target), Instant.now());
                    settled.put(step.run.call.getCallId(), new Settled(step.run.outcome, startedAt));
                }
            }));
        }
        for (Future<?> future : futures) {
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while tools ran", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a session's calls failed in the executor", e.getCause());
            }
        }
    }

    private void emit(TransactionalLoop.Batch batch, Step step, ToolResult result, Instant startedAt) {
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
        batch.send(hop.inject(new ProducerRecord<>(name, key, value)));
        hop.close(result.getTimestamp());
        stage(batch, step, CallLedger.finished(step.run.entry, result.getStatus(), startedAt == null
                ? result.getTimestamp() : startedAt, step.run.runs, result.getTimestamp()));
    }

    /** Sends a ledger entry (null: forget the call) and applies it to the ledger once the transaction commits. */
    private void stage(TransactionalLoop.Batch batch, Step step, ToolLedgerEntry entry) {
        batch.send(ledgerRecord(step, entry));
        staged.add(new Staged(step.partition, step.run.call.getCallId(), entry));
    }

    /** Into the ledger partition of the decision's own partition, so a partition's owner finds it there. */
    private ProducerRecord<byte[], byte[]> ledgerRecord(Step step, ToolLedgerEntry entry) {
        String name = topics.toolLedger.name();
        return new ProducerRecord<>(name, step.partition,
                step.run.call.getCallId().getBytes(StandardCharsets.UTF_8),
                entry == null ? null : topics.toolLedger.valueSerde().serializer().serialize(name, entry));
    }

    @Override
    public void close() {
        loop.close();
        pool.shutdownNow();
    }

    /** Local knowledge of a call that ran (or was never started) and whose ledger entry has not committed yet. */
    private record Settled(ToolResult result, Instant startedAt) {
        static final Settled NOT_STARTED = new Settled(null, null);
    }

    private record Staged(int partition, String callId, ToolLedgerEntry entry) {
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

    /** One record of the batch and what it leads to. */
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
