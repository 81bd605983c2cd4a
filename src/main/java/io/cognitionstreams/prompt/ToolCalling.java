package io.cognitionstreams.prompt;

/**
 * How a model calls tools ({@code run --model-tools}): with the chat API's own tool calls, or with {@code EXECUTE:}
 * lines in its text. Either way routing reads EXECUTE blocks: a native call is written into the output as one.
 */
public enum ToolCalling {
    /** The packet carries the tools the active skill may call, sent as the API's {@code tools}. */
    NATIVE,
    /** The tools index tells the model to write {@code EXECUTE: <tool> {JSON arguments}}; no {@code tools} sent. */
    TEXT
}
