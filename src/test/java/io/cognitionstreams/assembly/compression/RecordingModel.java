package io.cognitionstreams.assembly.compression;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import io.cognitionstreams.prompt.ModelClient;


/** In-memory stand-in for a model endpoint: answers with a fixed text, fails or hangs, and records each prompt. */
final class RecordingModel implements ModelClient {

    private final String answer;
    private final ModelException failure;
    private final Duration delay;
    final List<List<PromptMessage>> prompts = new CopyOnWriteArrayList<>();
    final List<String> models = new CopyOnWriteArrayList<>();
    final CountDownLatch interrupted = new CountDownLatch(1);

    private RecordingModel(String answer, ModelException failure, Duration delay) {
        this.answer = answer;
        this.failure = failure;
        this.delay = delay;
    }

    static RecordingModel answering(String answer) {
        return new RecordingModel(answer, null, Duration.ZERO);
    }

    static RecordingModel failing(String message) {
        return new RecordingModel(null, new ModelException(message, true, null), Duration.ZERO);
    }

    /** Hangs for {@code delay} like an overloaded endpoint, unless interrupted. */
    static RecordingModel hanging(Duration delay) {
        return new RecordingModel("never seen", null, delay);
    }

    int calls() {
        return prompts.size();
    }

    /** Answers on the caller's thread, as {@link #complete} does: the compression chain waits on its own threads. */
    @Override
    public CompletableFuture<Completion> call(ModelCall call) {
        try {
            return CompletableFuture.completedFuture(complete(call.model(), call.prompt()));
        } catch (ModelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public Completion complete(String model, List<PromptMessage> prompt) throws ModelException {
        prompts.add(prompt);
        models.add(model);
        if (!delay.isZero()) {
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw new ModelException("interrupted", true, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return new Completion(answer, model, null, null);
    }
}
