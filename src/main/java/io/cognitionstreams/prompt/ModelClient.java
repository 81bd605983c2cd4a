package io.cognitionstreams.prompt;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

import io.cognitionstreams.schema.ChatToolCall;

/**
 * Something that answers a rendered prompt: a real chat endpoint or the replay model. Asynchronous, because a
 * worker keeps hundreds of calls in flight and a call can take minutes: {@link #call} returns at once.
 */
public interface ModelClient {

    /**
     * Asks the model. Returns without waiting for the answer: the future completes with it, or exceptionally with
     * a {@link ModelException} (any other exception is a bug of the client). Cancelling the future gives up on the
     * call.
     */
    CompletableFuture<Completion> call(ModelCall call);

    /** Waits for {@link #call}: for callers with a thread to spare (compression tiers, tests). */
    default Completion complete(String model, List<PromptMessage> prompt) throws ModelException {
        return complete(ModelCall.of(model, prompt));
    }

    /** Waits for {@link #call}. */
    default Completion complete(ModelCall call) throws ModelException {
        return await(call(call));
    }

    /** Waits for a call's answer; cancels the call when the wait is interrupted. */
    static Completion await(CompletableFuture<Completion> answer) throws ModelException {
        try {
            return answer.get();
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new ModelException("interrupted while waiting for the model", true, e);
        } catch (CancellationException e) {
            throw new ModelException("the model call was cancelled", true, e);
        } catch (ExecutionException e) {
            throw ModelException.of(e.getCause());
        }
    }

    /**
     * One call.
     *
     * @param tools  what the model may call natively, empty for none (then it calls tools with EXECUTE lines)
     * @param deltas told each piece of the answer's text as it arrives, when the client streams; a client that
     *               does not stream never calls it
     */
    record ModelCall(String model, List<PromptMessage> prompt, List<ToolSpec> tools, Consumer<String> deltas) {

        private static final Consumer<String> NO_DELTAS = delta -> { };

        public ModelCall {
            prompt = List.copyOf(prompt);
            tools = List.copyOf(tools);
            deltas = deltas == null ? NO_DELTAS : deltas;
        }

        public static ModelCall of(String model, List<PromptMessage> prompt) {
            return new ModelCall(model, prompt, List.of(), NO_DELTAS);
        }

        public boolean streamed() {
            return deltas != NO_DELTAS;
        }
    }

    /**
     * A tool the model may call natively.
     *
     * @param name       as the pipeline names it (e.g. {@code shell.run}); a client maps it to what its API accepts
     *                   and maps the model's calls back
     * @param parameters the JSON schema of its arguments, an object schema
     */
    record ToolSpec(String name, String description, String parameters) {
    }

    /**
     * One chat message. {@code toolCallId} is set on a {@code tool} message (the call it answers), {@code toolCalls}
     * on an {@code assistant} message that calls tools; both are empty on every other message.
     */
    record PromptMessage(String role, String content, String toolCallId, List<ChatToolCall> toolCalls) {

        public PromptMessage {
            toolCalls = List.copyOf(toolCalls);
        }

        public PromptMessage(String role, String content) {
            this(role, content, null, List.of());
        }
    }

    /**
     * @param text      the answer's text, empty when it only calls tools
     * @param toolCalls the tools it called natively, with the pipeline's names, in the order it called them
     * @param model     the model that answered, as named in {@code LlmOutput.model}
     */
    record Completion(String text, List<ChatToolCall> toolCalls, String model, Integer promptTokens,
                      Integer completionTokens) {

        public Completion {
            text = text == null ? "" : text;
            toolCalls = List.copyOf(toolCalls);
        }

        public Completion(String text, String model, Integer promptTokens, Integer completionTokens) {
            this(text, List.of(), model, promptTokens, completionTokens);
        }
    }

    /**
     * A call that failed. Retriable when the same call may succeed later (the endpoint unreachable, a timeout, 429,
     * 5xx); not when it never will (other 4xx, an answer the client cannot read).
     */
    class ModelException extends Exception {
        private final boolean retriable;
        private final Duration retryAfter;

        public ModelException(String message, boolean retriable, Throwable cause) {
            this(message, retriable, cause, null);
        }

        /** @param retryAfter how long the endpoint asked callers to wait (its Retry-After), null when it did not */
        public ModelException(String message, boolean retriable, Throwable cause, Duration retryAfter) {
            super(message, cause);
            this.retriable = retriable;
            this.retryAfter = retryAfter;
        }

        /** The failure a call's future completed with, as a ModelException: a bug's exception is not retriable. */
        public static ModelException of(Throwable failure) {
            if (failure instanceof CompletionException && failure.getCause() != null) {
                return of(failure.getCause());
            }
            if (failure instanceof ModelException model) {
                return model;
            }
            return new ModelException("model client failed: " + failure, false, failure);
        }

        public boolean retriable() {
            return retriable;
        }

        public Optional<Duration> retryAfter() {
            return Optional.ofNullable(retryAfter);
        }
    }
}
