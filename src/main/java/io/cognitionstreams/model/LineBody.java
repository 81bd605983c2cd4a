package io.cognitionstreams.model;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

import io.cognitionstreams.prompt.ModelClient.ModelException;

/**
 * A response body read as it arrives, never more than a bound: whole, as one string, or line by line (a streamed
 * answer's server-sent events, lines ending in LF, CRLF or CR), each line handed on as soon as it is complete. A
 * last line the body cuts off before its end is dropped, as an event stream drops an unfinished event.
 */
final class LineBody implements HttpResponse.BodySubscriber<Object> {

    /** An answer over the bound. */
    static final class TooLong extends RuntimeException {
        TooLong(long bytes) {
            super("more than " + bytes + " bytes");
        }
    }

    @FunctionalInterface
    interface Lines {
        void line(String line) throws ModelException;
    }

    @FunctionalInterface
    interface End {
        Object end() throws ModelException;
    }

    private final CompletableFuture<Object> body = new CompletableFuture<>();
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final long maxBytes;
    private final Lines lines;
    private final End end;
    private Flow.Subscription subscription;
    private long received;
    private boolean afterCr;

    /** @param lines null to read the body whole; then {@code end} is not called */
    LineBody(long maxBytes, Lines lines, End end) {
        this.maxBytes = maxBytes;
        this.lines = lines;
        this.end = end;
    }

    @Override
    public CompletionStage<Object> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (body.isDone()) {
            return;
        }
        try {
            for (ByteBuffer buffer : buffers) {
                received += buffer.remaining();
                if (received > maxBytes) {
                    throw new TooLong(maxBytes);
                }
                if (lines == null) {
                    byte[] bytes = new byte[buffer.remaining()];
                    buffer.get(bytes);
                    pending.writeBytes(bytes);
                    continue;
                }
                while (buffer.hasRemaining()) {
                    byte b = buffer.get();
                    // LF and CR never occur inside a UTF-8 sequence: splitting bytes splits no character.
                    if (b == '\n' && afterCr) {
                        afterCr = false;
                    } else if (b == '\n' || b == '\r') {
                        afterCr = b == '\r';
                        String line = pending.toString(StandardCharsets.UTF_8);
                        pending.reset();
                        lines.line(line);
                    } else {
                        afterCr = false;
                        pending.write(b);
                    }
                }
            }
        } catch (ModelException | RuntimeException e) {
            subscription.cancel();
            body.completeExceptionally(e);
        }
    }

    @Override
    public void onError(Throwable failure) {
        body.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
        if (body.isDone()) {
            return;
        }
        if (lines == null) {
            body.complete(pending.toString(StandardCharsets.UTF_8));
            return;
        }
        try {
            body.complete(end.end());
        } catch (ModelException | RuntimeException e) {
            body.completeExceptionally(e);
        }
    }
}
