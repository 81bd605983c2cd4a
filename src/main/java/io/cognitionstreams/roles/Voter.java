package io.cognitionstreams.roles;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.Vote;

/**
 * What one council role answers to a proposal, without Kafka: it asks its model with the vote prompt and reads the
 * ballot. The model client waits out the endpoint's outages (the model worker's {@code ResilientModel}: backoff,
 * Retry-After, the endpoint's limit of calls at once, the circuit breaker), so a call either answers, is refused for
 * good, or is still waiting when the proposal's deadline comes:
 * <ul>
 *   <li>an answer is the ballot it reads ({@link Ballot#parse}: an answer that is no vote is an abstain that says
 *       so);</li>
 *   <li>a refusal for good (another 4xx, a body the client cannot read) is an abstain with the endpoint's error: the
 *       role took part and could not decide;</li>
 *   <li>no answer by the deadline is no vote ({@link Missed}, with the endpoint's condition): the council decides
 *       without the role, and the call is given up.</li>
 * </ul>
 */
public final class Voter implements AutoCloseable {

    /** The role's answer to one proposal. */
    public sealed interface Outcome permits Voted, Missed {
    }

    /** It voted. */
    public record Voted(Ballot ballot) implements Outcome {
    }

    /** It could not vote before the proposal's deadline, and why. */
    public record Missed(String why) implements Outcome {
    }

    private final String model;
    private final ModelClient client;
    private final Supplier<String> condition;
    private final Function<CouncilMessage, List<PromptMessage>> prompt;
    private final ScheduledExecutorService timer;

    /**
     * @param role      the council role it votes as (names its timer's thread)
     * @param model     the model name sent with each call (null: the endpoint's own)
     * @param condition how the endpoint is doing, in words, for the message of a missed vote
     * @param prompt    the vote prompt of a proposal
     */
    public Voter(String role, String model, ModelClient client, Supplier<String> condition,
                 Function<CouncilMessage, List<PromptMessage>> prompt) {
        this.model = model;
        this.client = client;
        this.condition = condition;
        this.prompt = prompt;
        // One thread for every deadline, which forgets one as soon as its vote is in (most are, long before it).
        ScheduledThreadPoolExecutor deadlines = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "council-role-" + role + "-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        deadlines.setRemoveOnCancelPolicy(true);
        this.timer = deadlines;
    }

    /**
     * Asks the model about the proposal. Returns at once; the future completes with the outcome by {@code left}
     * from now at the latest. Cancelling it gives up the call.
     */
    public CompletableFuture<Outcome> vote(CouncilMessage proposal, Duration left) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        CompletableFuture<ModelClient.Completion> call = client.call(ModelClient.ModelCall.of(model,
                prompt.apply(proposal)));
        call.whenComplete((completion, failure) -> {
            if (failure == null) {
                outcome.complete(new Voted(Ballot.parse(completion.text())));
                return;
            }
            ModelClient.ModelException refused = ModelClient.ModelException.of(failure);
            if (!refused.retriable()) {
                // It will never answer this prompt: the role takes part without deciding, and says why.
                outcome.complete(new Voted(new Ballot(Vote.ABSTAIN, Optional.empty(), Ballot.oneLine(
                        "abstained: the model refused the vote prompt: " + refused.getMessage()))));
            }
            // A failure that may pass reaches here only from a client that stopped: no vote, as at the deadline.
        });
        ScheduledFuture<?> deadline = timer.schedule(() -> outcome.complete(new Missed("its model did not answer "
                + "by the proposal's deadline (" + condition.get() + ")")), Math.max(0, left.toMillis()),
                TimeUnit.MILLISECONDS);
        // Answered, missed or given up by the loop: neither the call nor the deadline is needed any more.
        outcome.whenComplete((done, error) -> {
            call.cancel(true);
            deadline.cancel(false);
        });
        return outcome;
    }

    /** Stops the deadlines' timer: after the loop that asks has stopped. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
