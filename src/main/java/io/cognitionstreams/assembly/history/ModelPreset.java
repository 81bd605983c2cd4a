package io.cognitionstreams.assembly.history;

import java.util.List;
import java.util.Locale;

/**
 * Pruning settings and context-window size for a model family. Models are matched by name prefix, most specific
 * rule first, after dropping a provider prefix ("openai/gpt-4o" is "gpt-4o"). A model no rule names gets
 * {@link #DEFAULT}, sized like the smallest known window: underestimating a window wastes room, overestimating it
 * gets requests refused.
 *
 * @param family              the rule that matched, or "default"
 * @param contextWindowTokens the model's published context window, prompt and completion together
 * @param window              turns of working memory: the pruner keeps the last {@code 2 * window} messages verbatim
 * @param maxToolOutputChars  longest tool output kept whole in the archive
 */
public record ModelPreset(String family, int contextWindowTokens, int window, int maxToolOutputChars) {

    /** The seed's tool-output limit; it names no per-model value, so every preset uses it. */
    public static final int MAX_TOOL_OUTPUT_CHARS = 500;

    public static final ModelPreset DEFAULT = new ModelPreset("default", 8_192, 4, MAX_TOOL_OUTPUT_CHARS);

    /** gpt-4-turbo has gpt-4o's 128K window, so it gets gpt-4o's settings instead of gpt-4's 8K ones. */
    private static final List<ModelPreset> RULES = List.of(
            new ModelPreset("gpt-4o", 128_000, 6, MAX_TOOL_OUTPUT_CHARS),
            new ModelPreset("gpt-4-turbo", 128_000, 6, MAX_TOOL_OUTPUT_CHARS),
            new ModelPreset("gpt-4", 8_192, 4, MAX_TOOL_OUTPUT_CHARS),
            new ModelPreset("gpt-3.5-turbo", 16_385, 8, MAX_TOOL_OUTPUT_CHARS));

    public static ModelPreset forModel(String model) {
        String name = model == null ? "" : model.toLowerCase(Locale.ROOT).trim();
        String bare = name.substring(name.lastIndexOf('/') + 1);
        for (ModelPreset rule : RULES) {
            if (bare.startsWith(rule.family())) {
                return rule;
            }
        }
        return DEFAULT;
    }
}
