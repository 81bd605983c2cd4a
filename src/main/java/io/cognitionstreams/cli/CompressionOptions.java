package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.Optional;

import io.cognitionstreams.app.Settings;
import picocli.CommandLine.Option;

/** Which models compress a field the local summarizer cannot, and how long compressing may take. Options of `run`. */
final class CompressionOptions {

    @Option(names = "--lite-model", paramLabel = "NAME",
            description = "Model on --model-endpoint that compresses fields the local summarizer cannot (seed 003's "
                    + "Lite model).")
    String liteModel;

    @Option(names = "--prime-model", paramLabel = "NAME",
            description = "Model on --model-endpoint tried last to compress a field (seed 003's Prime model).")
    String primeModel;

    @Option(names = "--compression-deadline", defaultValue = "20s",
            description = "Time compressing one field may take in all (default: ${DEFAULT-VALUE}); keep it well "
                    + "under max.poll.interval.ms (5 min).")
    Duration compressionDeadline;

    Settings.CompressionSettings settings() {
        return new Settings.CompressionSettings(Optional.ofNullable(liteModel), Optional.ofNullable(primeModel),
                compressionDeadline);
    }
}
