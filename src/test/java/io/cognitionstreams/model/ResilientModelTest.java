package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.ModelClient.Completion;
import io.cognitionstreams.prompt.ModelClient.ModelCall;
import io.cognitionstreams.prompt.ModelClient.ModelException;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;

class ResilientModelTest {

    private static final ModelCall CALL = ModelCall.of("m", List.of(new PromptMessage("user", "hi")));
    /** Short delays, so a test waits milliseconds; the logic is the same at seconds. */
    private static final ResilientModel.Policy FAST = new ResilientModel.Policy(4, Duration.ofMillis(5),
            Duration.ofMillis(40), 3, Duration.ofMillis(30), Duration.ofMillis(120));

    private final List<ResilientModel> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(ResilientModel::close);
    }

    private ResilientModel resilient(ModelClient model, ResilientModel.Policy policy) {
        ResilientModel client = new ResilientModel("http://test/v1", model, policy);
        opened.add(client);
        return client;
    }

    private static Completion answer() {
        return new Completion("RESPONSE: ok", "m", 1, 1);
    }

    private static CompletableFuture<Completion> refused() {
        return CompletableFuture.failedFuture(new ModelException("model endpoint http://test/v1 unreachable: "
                + "connection refused", true, null));
    }

    @Test
    void retriesPassingFailuresUntilTheEndpointAnswers() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ResilientModel client = resilient(call -> calls.incrementAndGet() <= 7 ? (calls.get() % 2 == 0 ? refused()
                : CompletableFuture.failedFuture(new ModelException("HTTP 503", true, null)))
                : CompletableFuture.completedFuture(answer()), FAST);
        assertThat(client.call(CALL).get(10, TimeUnit.SECONDS).text()).isEqualTo("RESPONSE: ok");
        assertThat(calls).hasValue(8);
        assertThat(client.retries()).isEqualTo(7);
        assertThat(client.state()).isEqualTo(ResilientModel.State.CLOSED);
    }

    @Test
    void anAnswerThatCanNeverSucceedFailsAtOnceWithTheEndpointsWords() {
        AtomicInteger calls = new AtomicInteger();
        ResilientModel client = resilient(call -> {
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(new ModelException(
                    "model endpoint http://test/v1 answered HTTP 400: context too long", false, null));
        }, FAST);
        assertThatThrownBy(() -> client.call(CALL).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(ModelException.class).hasMessageContaining("HTTP 400: context too long");
        assertThat(calls).hasValue(1);
    }

    @Test
    void waitsAtLeastAsLongAsTheEndpointsRetryAfter() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        List<Long> at = new ArrayList<>();
        ResilientModel client = resilient(call -> {
            synchronized (at) {
                at.add(System.nanoTime());
            }
            return calls.incrementAndGet() == 1
                    ? CompletableFuture.failedFuture(new ModelException("HTTP 429", true, null,
                    Duration.ofMillis(300)))
                    : CompletableFuture.completedFuture(answer());
        }, FAST);
        client.call(CALL).get(5, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(at.get(1) - at.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void keepsAtMostItsLimitOfCallsAtTheEndpoint() throws Exception {
        List<CompletableFuture<Completion>> atEndpoint = new ArrayList<>();
        ResilientModel client = resilient(call -> {
            CompletableFuture<Completion> pending = new CompletableFuture<>();
            synchronized (atEndpoint) {
                atEndpoint.add(pending);
            }
            return pending;
        }, FAST);
        List<CompletableFuture<Completion>> results = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            results.add(client.call(CALL));
        }
        assertThat(atEndpoint).hasSize(4);
        assertThat(client.waiting()).isEqualTo(6);
        atEndpoint.get(0).complete(answer());
        assertThat(atEndpoint).hasSize(5);
        for (int i = 1; i < 10; i++) {
            synchronized (atEndpoint) {
                atEndpoint.get(i).complete(answer());
            }
        }
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(atEndpoint).hasSize(10);
    }

    @Test
    void theBreakerLeavesADownEndpointAloneAndLetsEveryoneThroughWhenItAnswers() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger atOnceWhileOpen = new AtomicInteger();
        AtomicInteger now = new AtomicInteger();
        ResilientModel[] holder = new ResilientModel[1];
        ResilientModel client = resilient(call -> {
            calls.incrementAndGet();
            if (holder[0] != null && holder[0].state() != ResilientModel.State.CLOSED) {
                atOnceWhileOpen.accumulateAndGet(now.incrementAndGet(), Math::max);
                now.decrementAndGet();
            }
            return down.get() ? refused() : CompletableFuture.completedFuture(answer());
        }, FAST);
        holder[0] = client;
        List<CompletableFuture<Completion>> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            results.add(client.call(CALL));
        }
        Thread.sleep(100);
        assertThat(client.state()).isNotEqualTo(ResilientModel.State.CLOSED);
        int before = calls.get();
        Thread.sleep(400);
        // Open, the endpoint sees one probe at a time, every 30 to 120 ms: a handful, not 20 callers' retries.
        assertThat(calls.get() - before).isBetween(1, 12);
        assertThat(atOnceWhileOpen.get()).isLessThanOrEqualTo(1);
        assertThat(results).noneMatch(CompletableFuture::isDone);

        down.set(false);
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(client.state()).isEqualTo(ResilientModel.State.CLOSED);
        assertThat(client.waiting()).isZero();
    }

    @Test
    void aCancelledCallIsNotTriedAgain() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ResilientModel client = resilient(call -> {
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(new ModelException("HTTP 503", true, null));
        }, new ResilientModel.Policy(4, Duration.ofMillis(5), Duration.ofMillis(10), 1000, Duration.ofMillis(30),
                Duration.ofMillis(30)));
        CompletableFuture<Completion> result = client.call(CALL);
        Thread.sleep(50);
        result.cancel(true);
        Thread.sleep(30);
        int after = calls.get();
        Thread.sleep(100);
        assertThat(calls.get()).isLessThanOrEqualTo(after + 1);
        assertThat(client.waiting()).isZero();
    }

    @Test
    void closingFailsWhatWaitsAsRetriable() {
        ResilientModel client = resilient(call -> refused(), FAST);
        CompletableFuture<Completion> result = client.call(CALL);
        client.close();
        assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ModelException.class)
                .satisfies(error -> assertThat(((ModelException) error).retriable()).isTrue());
    }
}
