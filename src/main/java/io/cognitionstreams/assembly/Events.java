package io.cognitionstreams.assembly;

/** Names of the pipeline events the assembly emits on cognition.events. */
public final class Events {

    public static final String CONTEXT_ASSEMBLED = "CONTEXT_ASSEMBLED";
    public static final String TOKEN_BUDGET_OVERRUN = "TOKEN_BUDGET_OVERRUN";
    public static final String TOKEN_BUDGET_ERROR = "TOKEN_BUDGET_ERROR";

    private Events() {
    }
}
