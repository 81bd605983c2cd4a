package io.cognitionstreams.model;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.cognitionstreams.prompt.ModelClient.Completion;
import io.cognitionstreams.prompt.ModelClient.ModelException;

/**
 * What the chat APIs' clients share: how a call is sent, read and failed. A call is retriable exactly when the
 * same call may succeed later: the endpoint unreachable, no answer in time, 408, 429 or 5xx (Anthropic's 529
 * "overloaded" included), with the endpoint's Retry-After passed on. Every failure says the endpoint's own words.
 */
final class ModelHttp {

    /**
     * The most an answer may be, streamed or not: far above any real one (routing refuses outputs over 512 KiB), a
     * bound on what a broken or hostile endpoint can make the worker hold.
     */
    static final int MAX_ANSWER_BYTES = 16 * 1024 * 1024;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI endpoint;
    private final Duration timeout;

    ModelHttp(URI endpoint, Duration timeout) {
        this.endpoint = endpoint;
        this.timeout = timeout;
    }

    URI endpoint() {
        return endpoint;
    }

    HttpRequest.Builder post(String body) {
        return HttpRequest.newBuilder(endpoint)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    /**
     * Sends {@code request} without waiting. An answer with status 200 is read by {@code read} (a whole body) or,
     * when {@code stream} is set, line by line as it arrives by the stream's reader; any other status by
     * {@code refusal}, which names the failure in the endpoint's words. The whole call, stream included, is bounded
     * by the timeout.
     */
    CompletableFuture<Completion> send(HttpRequest request, Stream stream, Function<String, Completion> read,
                                       Refusal refusal) {
        CompletableFuture<HttpResponse<Object>> response = http.sendAsync(request, info -> {
            if (info.statusCode() == 200 && stream != null) {
                return new LineBody(MAX_ANSWER_BYTES, stream::line, stream::end);
            }
            return new LineBody(MAX_ANSWER_BYTES, null, null);
        });
        CompletableFuture<Completion> answer = response.handle((received, failure) -> {
            if (failure != null) {
                throw new CompletionException(failed(failure));
            }
            if (received.statusCode() != 200) {
                throw new CompletionException(refusal.of(received.statusCode(), (String) received.body(),
                        received.headers()));
            }
            return stream != null ? (Completion) received.body() : read.apply((String) received.body());
        });
        // A stream that trickles must not hold a call for ever.
        CompletableFuture<Completion> result = answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(failed(failure)));
        // Given up (timed out, failed, or cancelled by the caller): so is the exchange.
        result.whenComplete((done, failure) -> {
            if (failure != null) {
                response.cancel(true);
            }
        });
        return result;
    }

    /** Reads one streamed answer: each line as it arrives, then the completion once the body ends. */
    interface Stream {
        /** @throws ModelException the stream says the call failed, or cannot be read */
        void line(String line) throws ModelException;

        /** @throws ModelException the stream ended before the answer did */
        Completion end() throws ModelException;
    }

    /** The failure an answer with another status than 200 is. */
    @FunctionalInterface
    interface Refusal {
        ModelException of(int status, String body, HttpHeaders headers);
    }

    /** A failure of the exchange itself, as a ModelException (one already is one). */
    ModelException failed(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof java.util.concurrent.ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof ModelException model) {
            return model;
        }
        if (cause instanceof LineBody.TooLong) {
            return new ModelException("model endpoint " + endpoint + " answered with more than "
                    + MAX_ANSWER_BYTES + " bytes", false, cause);
        }
        String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        if (cause instanceof HttpTimeoutException || cause instanceof TimeoutException) {
            why = "no answer within " + timeout.toMillis() + " ms";
        } else if (cause instanceof ConnectException) {
            why = "connection refused" + (cause.getMessage() != null ? " (" + cause.getMessage() + ")" : "");
        }
        // An IOException is the connection (refused, reset, cut off mid-answer): the same call may work later.
        boolean retriable = cause instanceof IOException || cause instanceof TimeoutException;
        return new ModelException("model endpoint " + endpoint + " unreachable: " + why, retriable, cause);
    }

    /** A refusal by HTTP status, with the endpoint's own message and its Retry-After. */
    ModelException refused(int status, String message, HttpHeaders headers) {
        return new ModelException("model endpoint " + endpoint + " answered HTTP " + status + ": " + message,
                retriable(status), null, RetryAfter.parse(headers.firstValue("Retry-After"), Instant.now())
                .orElse(null));
    }

    static boolean retriable(int status) {
        return status == 408 || status == 429 || status >= 500;
    }

    ModelException unreadable(String what, String body, Throwable cause) {
        return new ModelException("model endpoint " + endpoint + " " + what + ": " + abbreviate(body), false, cause);
    }

    static String abbreviate(String text) {
        if (text == null) {
            return "(no body)";
        }
        return text.length() <= 300 ? text : text.substring(0, 300) + "...";
    }
}
