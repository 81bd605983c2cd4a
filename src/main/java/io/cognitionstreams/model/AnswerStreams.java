package io.cognitionstreams.model;

import java.util.concurrent.CompletableFuture;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.schema.CognitionPacket;

/**
 * How the model worker makes a call: with {@code --model-stream} the answer is previewed as it is written
 * ({@link StreamedAnswers}), else ({@link #OFF}) the call goes out as it is. One call per attempt: a retried call
 * is previewed again from its start.
 */
public interface AnswerStreams extends AutoCloseable {

    /** Previews nothing. */
    AnswerStreams OFF = new AnswerStreams() {
        @Override
        public CompletableFuture<ModelClient.Completion> call(ModelClient model, ModelClient.ModelCall call,
                                                              CognitionPacket packet) {
            return model.call(call);
        }

        @Override
        public void close() {
        }
    };

    /**
     * Asks {@code model}. Streaming, the call carries a sink for the answer's text, and its preview has ended (its
     * last delta sent, and acknowledged unless the broker is slow) before the returned future completes, so the
     * preview is on its topics before the output is written.
     *
     * @param packet what the call answers: the session and lineage the preview carries
     */
    CompletableFuture<ModelClient.Completion> call(ModelClient model, ModelClient.ModelCall call,
                                                   CognitionPacket packet);

    @Override
    void close();
}
