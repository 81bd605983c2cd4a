package io.cognitionstreams.model;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.telemetry.IntervalLog;

/**
 * A model endpoint that stalls through outages instead of failing: every call that fails in a way that may pass (the
 * endpoint unreachable, a timeout, 429, 5xx) is tried again, with exponential backoff and full jitter and no sooner
 * than the endpoint's Retry-After, until it succeeds or this client closes. Only an answer that can never succeed
 * (another 4xx, a body the client cannot read) fails the call. Around that:
 * <ul>
 *   <li>at most {@link Policy#maxInFlight} calls reach the endpoint at once; the others wait in order, without a
 *       thread each;</li>
 *   <li>a circuit breaker: after {@link Policy#breakerThreshold} failures in a row the endpoint is left alone (calls
 *       wait) for {@link Policy#breakerOpen}, doubling up to {@link Policy#maxBreakerOpen} while it stays down; then
 *       one call probes it (half-open), and an answer lets every waiting call through. It logs when it opens and
 *       closes, and at most once a minute while it stays open.</li>
 * </ul>
 * One instance per endpoint, shared by everything that calls it, so the limit and the breaker are the endpoint's.
 */
public final class ResilientModel implements ModelClient, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ResilientModel.class);

    /**
     * @param maxInFlight      calls at the endpoint at once
     * @param baseDelay        the first retry's backoff bound; each retry doubles it
     * @param maxDelay         the most one retry's backoff may reach
     * @param breakerThreshold failures in a row that open the breaker
     * @param breakerOpen      how long the breaker stays open the first time
     * @param maxBreakerOpen   the most it stays open, doubling while probes fail
     */
    public record Policy(int maxInFlight, Duration baseDelay, Duration maxDelay, int breakerThreshold,
                         Duration breakerOpen, Duration maxBreakerOpen) {

        public Policy {
            if (maxInFlight < 1 || breakerThreshold < 1) {
                throw new IllegalArgumentException("maxInFlight and breakerThreshold must be at least 1");
            }
        }

        public static Policy of(int maxInFlight) {
            return new Policy(maxInFlight, Duration.ofMillis(250), Duration.ofSeconds(30), 5, Duration.ofSeconds(1),
                    Duration.ofSeconds(15));
        }
    }

    /** The breaker's state. */
    public enum State { CLOSED, OPEN, HALF_OPEN }

    private final String endpoint;
    private final ModelClient model;
    private final Policy policy;
    private final ScheduledExecutorService timer;
    private final LongSupplier nanos;
    private final DoubleSupplier random;
    private final IntervalLog stillOpen;
    private final AtomicInteger pumping = new AtomicInteger();
    private final AtomicLong retries = new AtomicLong();

    // Guarded by this.
    private final Deque<Attempt> waiting = new ArrayDeque<>();
    private int inFlight;
    private final List<Attempt> backingOff = new ArrayList<>();
    private State state = State.CLOSED;
    private int failuresInARow;
    private long openFor;
    private long openUntil;
    private long openedAt;
    private long holdUntil;
    private long wakeAt = Long.MAX_VALUE;
    private String lastFailure = "";
    private boolean closed;

    /** @param endpoint how logs name the endpoint (its URL) */
    public ResilientModel(String endpoint, ModelClient model, Policy policy) {
        this(endpoint, model, policy, Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "model-retries");
            thread.setDaemon(true);
            return thread;
        }), System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
    }

    ResilientModel(String endpoint, ModelClient model, Policy policy, ScheduledExecutorService timer,
                   LongSupplier nanos, DoubleSupplier random) {
        this.endpoint = endpoint;
        this.model = model;
        this.policy = policy;
        this.timer = timer;
        this.nanos = nanos;
        this.random = random;
        this.openFor = policy.breakerOpen().toNanos();
        this.stillOpen = new IntervalLog(LOG, "model endpoint " + endpoint + " still unreachable, circuit open",
                Duration.ofMinutes(1));
    }

    @Override
    public CompletableFuture<Completion> call(ModelCall call) {
        CompletableFuture<Completion> result = new CompletableFuture<>();
        synchronized (this) {
            if (closed) {
                result.completeExceptionally(stopped());
                return result;
            }
            waiting.add(new Attempt(call, result, 1));
        }
        pump();
        return result;
    }

    /** Sends what may go now; one thread at a time does, the others leave their turn to it. */
    private void pump() {
        if (pumping.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            List<Attempt> go = new ArrayList<>();
            synchronized (this) {
                long now = nanos.getAsLong();
                if (state == State.OPEN && now - openUntil >= 0) {
                    state = State.HALF_OPEN;
                }
                while (!waiting.isEmpty() && inFlight < policy.maxInFlight() && now - holdUntil >= 0
                        && (state == State.CLOSED || (state == State.HALF_OPEN && inFlight == 0))) {
                    Attempt attempt = waiting.poll();
                    if (attempt.result.isDone()) {
                        continue; // cancelled while it waited
                    }
                    inFlight++;
                    go.add(attempt);
                    if (state == State.HALF_OPEN) {
                        break; // the probe goes alone
                    }
                }
                if (!waiting.isEmpty() && go.isEmpty() && inFlight == 0) {
                    wakeUpAt(Math.max(state == State.OPEN ? openUntil - now : 0, holdUntil - now));
                }
            }
            go.forEach(this::send);
            missed = pumping.addAndGet(-missed);
        } while (missed != 0);
    }

    /** One timer for everything waiting on the breaker or a Retry-After, not one per call. */
    private void wakeUpAt(long delayNanos) {
        long at = nanos.getAsLong() + Math.max(delayNanos, 0);
        if (wakeAt != Long.MAX_VALUE && wakeAt - at <= 0) {
            return;
        }
        wakeAt = at;
        timer.schedule(() -> {
            synchronized (this) {
                wakeAt = Long.MAX_VALUE;
            }
            pump();
        }, Math.max(delayNanos, 0), TimeUnit.NANOSECONDS);
    }

    private void send(Attempt attempt) {
        CompletableFuture<Completion> answer;
        try {
            answer = model.call(attempt.call);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Completion> sent = answer;
        // Given up (the record's partition went): so is the request.
        attempt.result.whenComplete((done, error) -> {
            if (attempt.result.isCancelled()) {
                sent.cancel(true);
            }
        });
        sent.whenComplete((completion, error) -> answered(attempt, completion, error));
    }

    private void answered(Attempt attempt, Completion completion, Throwable error) {
        ModelException failure = error == null ? null : ModelException.of(error);
        boolean retry = false;
        synchronized (this) {
            inFlight--;
            if (attempt.result.isDone()) {
                // cancelled meanwhile: nothing to tell anyone
            } else if (failure == null || !failure.retriable()) {
                answering(); // a refusal is an answer too: the endpoint is there
            } else {
                failing(failure);
                retry = !closed;
            }
        }
        if (attempt.result.isDone()) {
            pump();
            return;
        }
        if (failure == null) {
            attempt.result.complete(completion);
        } else if (!failure.retriable()) {
            attempt.result.completeExceptionally(failure);
        } else if (retry) {
            retries.incrementAndGet();
            long delay = backoff(attempt.number, failure);
            synchronized (this) {
                backingOff.add(attempt);
            }
            timer.schedule(() -> {
                synchronized (this) {
                    if (!backingOff.remove(attempt)) {
                        return; // closed meanwhile
                    }
                    waiting.add(new Attempt(attempt.call, attempt.result, attempt.number + 1));
                }
                pump();
            }, delay, TimeUnit.NANOSECONDS);
        } else {
            attempt.result.completeExceptionally(stopped());
        }
        pump();
    }

    /** Full jitter: anywhere up to the doubled bound, so a crowd of callers does not come back at once. */
    private long backoff(int number, ModelException failure) {
        long bound = policy.baseDelay().toNanos() << Math.min(number - 1, 30);
        if (bound <= 0 || bound > policy.maxDelay().toNanos()) {
            bound = policy.maxDelay().toNanos();
        }
        long jittered = (long) (random.getAsDouble() * bound);
        long asked = failure.retryAfter().map(Duration::toNanos).orElse(0L);
        return Math.max(jittered, asked);
    }

    private void answering() {
        failuresInARow = 0;
        if (state != State.CLOSED) {
            LOG.info("model endpoint {} answers again: circuit closed after {} s; {} calls were waiting", endpoint,
                    Duration.ofNanos(nanos.getAsLong() - openedAt).toSeconds(), waiting.size() + backingOff.size());
            state = State.CLOSED;
            openFor = policy.breakerOpen().toNanos();
        }
    }

    private void failing(ModelException failure) {
        long now = nanos.getAsLong();
        lastFailure = failure.getMessage();
        failure.retryAfter().ifPresent(wait -> holdUntil = Math.max(holdUntil, now + wait.toNanos()));
        failuresInARow++;
        if (state == State.CLOSED && failuresInARow >= policy.breakerThreshold()) {
            state = State.OPEN;
            openedAt = now;
            openUntil = now + openFor;
            LOG.warn("model endpoint {} failing: circuit open after {} failures in a row, calls wait and are tried "
                    + "again when it answers (last: {})", endpoint, failuresInARow, lastFailure);
        } else if (state == State.HALF_OPEN) {
            openFor = Math.min(openFor * 2, policy.maxBreakerOpen().toNanos());
            state = State.OPEN;
            openUntil = now + openFor;
            stillOpen.warn(String.format("for %d s, %d calls waiting (last: %s)",
                    Duration.ofNanos(now - openedAt).toSeconds(), waiting.size() + backingOff.size() + 1, lastFailure));
        }
    }

    private ModelException stopped() {
        return new ModelException("the model client for " + endpoint + " stopped", true, null);
    }

    public synchronized State state() {
        return state;
    }

    /** Calls not at the endpoint now: waiting for a place, the breaker or their backoff. */
    public synchronized int waiting() {
        return waiting.size() + backingOff.size();
    }

    public synchronized int inFlight() {
        return inFlight;
    }

    /**
     * How the endpoint is doing, in words, for a message about a call that still waits: the breaker's state, the
     * calls waiting and the last failure, e.g. {@code circuit OPEN for 12 s, 3 calls waiting; last failure: ...}.
     */
    public synchronized String condition() {
        String circuit = state == State.CLOSED ? "circuit closed"
                : "circuit " + state + " for " + Duration.ofNanos(nanos.getAsLong() - openedAt).toSeconds() + " s";
        return circuit + ", " + (waiting.size() + backingOff.size()) + " calls waiting, " + inFlight + " at the "
                + "endpoint" + (lastFailure.isEmpty() ? "" : "; last failure: " + lastFailure);
    }

    /** Retries since the start. */
    public long retries() {
        return retries.get();
    }

    /** Stops retrying: what waits fails as retriable (its record is read again by whoever comes next). */
    @Override
    public void close() {
        List<Attempt> left;
        synchronized (this) {
            closed = true;
            left = new ArrayList<>(waiting);
            left.addAll(backingOff);
            waiting.clear();
            backingOff.clear();
        }
        left.forEach(attempt -> attempt.result.completeExceptionally(stopped()));
        timer.shutdownNow();
    }

    private record Attempt(ModelCall call, CompletableFuture<Completion> result, int number) {
    }
}
