package io.cognitionstreams.prompt;

import java.util.List;

import io.cognitionstreams.schema.ChatToolCall;

/** Something that answers a rendered prompt: a real chat-completions endpoint or the replay model. */
public interface ModelClient {

    Completion complete(String model, List<PromptMessage> prompt) throws ModelException;

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
