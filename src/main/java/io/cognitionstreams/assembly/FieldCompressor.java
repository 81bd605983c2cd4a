package io.cognitionstreams.assembly;

import io.cognitionstreams.tokens.TokenCounter;

/** Shrinks a field that is over its token budget (seed 003 section 4.2), or says why it cannot. */
@FunctionalInterface
public interface FieldCompressor {

    /** The marker compressed text carries, so people reading a packet notice it (seed 003 section 4.2). */
    String SUMMARY_TAG = "⚠SUMMARY";

    Outcome compress(String field, String text, int targetTokens, TokenCounter counter);

    sealed interface Outcome permits Compressed, Failed {
    }

    /** @param text the compressed text, tagged and within the target, counted with the same counter */
    record Compressed(String text, int originalTokens, int compressedTokens, String method) implements Outcome {
    }

    record Failed(int originalTokens, String reason) implements Outcome {
    }

    /** For deployments that want an over-budget field to fail rather than be summarized. */
    FieldCompressor NONE = (field, text, target, counter) ->
            new Failed(counter.count(text), "no compression configured");
}
