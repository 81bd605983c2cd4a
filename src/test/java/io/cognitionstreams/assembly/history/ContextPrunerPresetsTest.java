package io.cognitionstreams.assembly.history;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ContextPrunerPresetsTest {

    @ParameterizedTest
    @CsvSource({
            "gpt-4o,                 gpt-4o,        128000, 6",
            "gpt-4o-mini,            gpt-4o,        128000, 6",
            "gpt-4o-2024-08-06,      gpt-4o,        128000, 6",
            "openai/GPT-4o,          gpt-4o,        128000, 6",
            "gpt-4-turbo,            gpt-4-turbo,   128000, 6",
            "gpt-4-turbo-2024-04-09, gpt-4-turbo,   128000, 6",
            "gpt-4,                  gpt-4,         8192,   4",
            "gpt-4-0613,             gpt-4,         8192,   4",
            "gpt-3.5-turbo,          gpt-3.5-turbo, 16385,  8",
            "gpt-3.5-turbo-0125,     gpt-3.5-turbo, 16385,  8",
            "llama-3-70b,            default,       8192,   4",
            "'',                     default,       8192,   4"})
    void modelsAreMatchedByPrefix(String model, String family, int contextWindowTokens, int window) {
        ModelPreset preset = ModelPreset.forModel(model);

        assertThat(preset.family()).isEqualTo(family);
        assertThat(preset.contextWindowTokens()).isEqualTo(contextWindowTokens);
        assertThat(preset.window()).isEqualTo(window);
        assertThat(preset.maxToolOutputChars()).isEqualTo(ModelPreset.MAX_TOOL_OUTPUT_CHARS);
    }

    @Test
    void noModelGetsTheDefault() {
        assertThat(ModelPreset.forModel(null)).isEqualTo(ModelPreset.DEFAULT);
    }

    @Test
    void aPrunerForAModelUsesItsPreset() {
        ContextPruner pruner = ContextPruner.forModel("gpt-3.5-turbo");

        assertThat(pruner.window()).isEqualTo(8);
        assertThat(pruner.maxToolOutputChars()).isEqualTo(500);
    }
}
