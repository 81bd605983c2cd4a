package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.Optional;

import io.cognitionstreams.app.Settings;
import picocli.CommandLine.Option;

/** Which model answers packets: the replay model, or an OpenAI-compatible endpoint. Options of `run`. */
final class ModelOptions {

    @Option(names = "--model-endpoint", paramLabel = "URL",
            description = "OpenAI-compatible API base URL, e.g. http://localhost:11434/v1. "
                    + "Default: the replay model, which answers from recorded transcripts.")
    String modelEndpoint;

    @Option(names = "--model-api-key-env", paramLabel = "VAR",
            description = "Environment variable holding the endpoint's API key (the key itself never goes on the "
                    + "command line).")
    String modelApiKeyEnv;

    @Option(names = "--model-name", paramLabel = "NAME",
            description = "Model name sent to the endpoint instead of each packet's target model.")
    String modelName;

    @Option(names = "--model-timeout", defaultValue = "60s",
            description = "Timeout of one model call (default: ${DEFAULT-VALUE}).")
    Duration modelTimeout;

    /** The key itself is read from the environment variable --model-api-key-env names, never from a flag. */
    Settings.ModelSettings settings() {
        return new Settings.ModelSettings(Optional.ofNullable(modelEndpoint),
                Optional.ofNullable(modelApiKeyEnv).map(System::getenv), Optional.ofNullable(modelName), modelTimeout,
                3);
    }
}
