package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.prompt.ToolCalling;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The model room: which model answers packets (the replay model, or an endpoint), how many calls it gets at once,
 * which API the endpoint speaks and how the model calls tools (docs/model.md). Options of `run` and `bench`.
 */
final class ModelOptions {

    @Option(names = "--model-endpoint", paramLabel = "URL",
            description = "The model's API base URL, e.g. http://localhost:11434/v1 (its API: --model-api). "
                    + "Default: the replay model, which answers from recorded transcripts.")
    String endpoint;

    @Option(names = "--model-api-key-env", paramLabel = "VAR",
            description = "Environment variable holding the endpoint's API key (the key itself never goes on the "
                    + "command line).")
    String apiKeyEnv;

    @Option(names = "--model-name", paramLabel = "NAME",
            description = "Model name sent to the endpoint instead of each packet's target model.")
    String name;

    @Option(names = "--model-timeout", defaultValue = "60s",
            description = "Timeout of one model call; a call that times out is tried again (default: "
                    + "${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--model-concurrency", paramLabel = "N",
            defaultValue = "" + Settings.ModelSettings.DEFAULT_CONCURRENCY,
            description = "Model calls in flight at once, one per session, and the most the endpoint gets at once "
                    + "(default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--model-api", paramLabel = "openai|anthropic", defaultValue = "openai",
            converter = ApiName.class,
            description = "What --model-endpoint speaks: openai, chat completions (OpenAI, Ollama, vLLM, llama.cpp "
                    + "server, most hosted APIs; base URL before /chat/completions), or anthropic, Anthropic's "
                    + "Messages API (base URL before /messages, e.g. https://api.anthropic.com/v1) "
                    + "(default: ${DEFAULT-VALUE}).")
    Settings.ModelApi api;

    @Option(names = "--model-tools", paramLabel = "native|text", defaultValue = "native",
            converter = ToolCallingName.class,
            description = "How the model calls tools: native, with the API's tool calls (packets carry the tools "
                    + "the active skill may call, with their JSON schemas, counted against the MTU), or text, "
                    + "with EXECUTE lines the tools index teaches it (default: ${DEFAULT-VALUE}).")
    ToolCalling tools;

    @Option(names = "--model-max-tokens", paramLabel = "N",
            defaultValue = "" + Settings.Provider.DEFAULT_MAX_TOKENS,
            description = "The most one answer may have, where the API requires a bound (Anthropic's max_tokens) "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxTokens;

    Settings.ModelSettings settings() {
        return settings(endpoint);
    }

    /**
     * The settings with another endpoint than --model-endpoint's (the bench's double). The key itself is read from
     * the environment variable --model-api-key-env names, never from a flag.
     */
    Settings.ModelSettings settings(String endpoint) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("--model-concurrency must be at least 1, got " + concurrency);
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("--model-max-tokens must be at least 1, got " + maxTokens);
        }
        return new Settings.ModelSettings(Optional.ofNullable(endpoint),
                Optional.ofNullable(apiKeyEnv).map(System::getenv), Optional.ofNullable(name), timeout, concurrency,
                new Settings.Provider(api, tools, maxTokens));
    }

    /** Lower-case names on the command line, as the docs write them. */
    static final class ApiName implements ITypeConverter<Settings.ModelApi> {
        @Override
        public Settings.ModelApi convert(String value) {
            try {
                return Settings.ModelApi.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not openai or anthropic");
            }
        }
    }

    static final class ToolCallingName implements ITypeConverter<ToolCalling> {
        @Override
        public ToolCalling convert(String value) {
            try {
                return ToolCalling.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not native or text");
            }
        }
    }
}
