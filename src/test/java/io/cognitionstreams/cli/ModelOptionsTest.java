package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.prompt.ToolCalling;
import io.cognitionstreams.testing.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class ModelOptionsTest {

    @Command
    static final class Holder {
        @Mixin
        ModelOptions model;
    }

    private static ModelOptions parse(String... args) {
        Holder holder = new Holder();
        new CommandLine(holder).registerConverter(Duration.class, new DurationConverter()).parseArgs(args);
        return holder.model;
    }

    @Test
    void openAiCompatibleWithNativeToolCallsUnlessAskedOtherwise() {
        assertThat(parse().settings().provider()).isEqualTo(Settings.Provider.defaults());
        assertThat(parse().settings().provider())
                .isEqualTo(new Settings.Provider(Settings.ModelApi.OPENAI, ToolCalling.NATIVE, 4096));
        assertThat(parse("--model-api", "anthropic", "--model-tools", "text", "--model-max-tokens", "8192")
                .settings().provider())
                .isEqualTo(new Settings.Provider(Settings.ModelApi.ANTHROPIC, ToolCalling.TEXT, 8192));
        assertThatThrownBy(() -> parse("--model-api", "gemini"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("openai or anthropic");
        assertThatThrownBy(() -> parse("--model-tools", "json"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("native or text");
    }

    @Test
    void runRefusesABoundOfNoTokensBeforeItStartsAnything() {
        Cli run = Cli.run("run", "--model-max-tokens", "0");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--model-max-tokens must be at least 1, got 0");
    }
}
