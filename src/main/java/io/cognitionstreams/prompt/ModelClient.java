package io.cognitionstreams.prompt;

import java.util.List;

/** Something that answers a rendered prompt: a real chat-completions endpoint or the replay model. */
public interface ModelClient {

    Completion complete(String model, List<PromptMessage> prompt) throws ModelException;

    record PromptMessage(String role, String content) {
    }

    /** @param model the model that answered, as named in {@code LlmOutput.model} */
    record Completion(String text, String model, Integer promptTokens, Integer completionTokens) {
    }

    class ModelException extends Exception {
        private final boolean retriable;

        public ModelException(String message, boolean retriable, Throwable cause) {
            super(message, cause);
            this.retriable = retriable;
        }

        public boolean retriable() {
            return retriable;
        }
    }
}
