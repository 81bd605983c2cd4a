package io.cognitionstreams.assembly;

import java.util.List;

import io.cognitionstreams.assembly.compression.CompressionResult;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * Shrinks a field that is over its token budget (seed 003 section 4.2), or says why it cannot. The app's is the
 * {@link io.cognitionstreams.assembly.compression.CompressionChain}.
 */
@FunctionalInterface
public interface FieldCompressor {

    CompressionResult compress(String field, String text, int targetTokens, TokenCounter counter);

    /** For deployments that want an over-budget field to fail rather than be summarized. */
    FieldCompressor NONE = (field, text, target, counter) -> new CompressionResult.TokenBudgetError(field,
            counter.count(text), target, List.of(new CompressionResult.Attempt("none", "no compression configured")));

    /** Why compression failed, in one line, for the TokenBudgetError the packet ends in. */
    static String reason(CompressionResult.TokenBudgetError error) {
        return error.attempts().stream().map(a -> a.method() + ": " + a.failure())
                .reduce((a, b) -> a + "; " + b).orElse("no attempt");
    }
}
