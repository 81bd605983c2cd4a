package io.cognitionstreams.assembly;

import io.cognitionstreams.tokens.TokenCounter;

/**
 * One layer of the system context (seed 002): composed in ascending priority, each within its own budget, a share
 * of what the header fields and the user prompt leave.
 */
public interface ContextProvider {

    String name();

    int priority();

    /** Share, in percent, of the tokens left after the header fields and the user prompt. */
    int percentOfRemaining();

    Layer provide(AssemblyInput input, int budgetTokens, TokenCounter counter);
}
