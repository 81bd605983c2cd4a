package io.cognitionstreams.executor;

import java.util.Objects;

import io.cognitionstreams.schema.ToolStatus;

/**
 * How one run of a tool ended, before it becomes a {@code ToolResult}: the status, what the tool returned (text,
 * and a JSON object when it gave one) or what went wrong, and how long the tool itself ran.
 */
public record Outcome(ToolStatus status, String text, String json, String error, long durationMs) {

    public Outcome {
        Objects.requireNonNull(status, "status");
    }

    public static Outcome succeeded(String text, String json, long durationMs) {
        return new Outcome(ToolStatus.SUCCEEDED, text, json, null, durationMs);
    }

    public static Outcome failed(String error, String text, long durationMs) {
        return new Outcome(ToolStatus.FAILED, text, null, error, durationMs);
    }

    /** Refused before anything ran: a bad call, a tool nobody offers, a server that would not start. */
    public static Outcome notRun(String error) {
        return new Outcome(ToolStatus.FAILED, null, null, error, 0);
    }

    public static Outcome timedOut(String error, String text, long durationMs) {
        return new Outcome(ToolStatus.TIMED_OUT, text, null, error, durationMs);
    }

    public static Outcome unknown(String error, long durationMs) {
        return new Outcome(ToolStatus.UNKNOWN_OUTCOME, null, null, error, durationMs);
    }

    public boolean succeeded() {
        return status == ToolStatus.SUCCEEDED;
    }
}
