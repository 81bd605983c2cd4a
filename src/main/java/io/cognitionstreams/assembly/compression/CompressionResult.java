package io.cognitionstreams.assembly.compression;

import java.util.List;

/** What {@link CompressionChain#compress} gives back: a compressed field, or the reason there is none. */
public sealed interface CompressionResult {

    /**
     * @param text             the compressed field, starting with {@link CompressionChain#TAG}
     * @param compressedTokens tokens of {@code text}, tag included; never above the target
     * @param method           {@code extractive}, {@code lite} or {@code prime}
     */
    record Compressed(String text, int originalTokens, int compressedTokens, String method)
            implements CompressionResult {
    }

    /** No tier reached the target; assembly must stop rather than send a truncated field. */
    record TokenBudgetError(String field, int originalTokens, int targetTokens, List<Attempt> attempts)
            implements CompressionResult {

        public TokenBudgetError {
            attempts = List.copyOf(attempts);
        }
    }

    /** One tier that failed and why, e.g. {@code lite: answer has 143 tokens, target 120}. */
    record Attempt(String method, String failure) {
    }
}
