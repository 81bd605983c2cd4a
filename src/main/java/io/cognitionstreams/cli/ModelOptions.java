package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.Optional;

import io.cognitionstreams.app.Settings;
import picocli.CommandLine.Option;

/** The model room's flags: which endpoint answers packets, and how many calls it gets at once. */
final class ModelOptions {

    @Option(names = "--model-endpoint", paramLabel = "URL",
            description = "OpenAI-compatible API base URL, e.g. http://localhost:11434/v1. "
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

    Settings.ModelSettings settings() {
        return settings(endpoint);
    }

    /** The settings with another endpoint than --model-endpoint's (the bench's double). */
    Settings.ModelSettings settings(String endpoint) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("--model-concurrency must be at least 1, got " + concurrency);
        }
        return new Settings.ModelSettings(Optional.ofNullable(endpoint),
                Optional.ofNullable(apiKeyEnv).map(System::getenv), Optional.ofNullable(name), timeout, concurrency);
    }
}
