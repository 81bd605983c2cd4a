package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.util.Optional;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.routing.RoutingLimits;
import picocli.CommandLine.Option;

/** Marker routing: the destination matrix, how much one output may become, the redaction rules. Options of `run`. */
final class RoutingOptions {

    @Option(names = "--destinations", paramLabel = "MARKER=ch,...;...",
            description = "Rows replacing seed 003's destination matrix, e.g. \"PLAN=cli_chat;THOUGHT_SEED=memory\".")
    String destinations;

    @Option(names = "--max-blocks-per-output", paramLabel = "N", defaultValue = "" + RoutingLimits.DEFAULT_MAX_BLOCKS,
            description = "Blocks one model output may have; a longer one is dead-lettered whole "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxBlocksPerOutput;

    @Option(names = "--max-records-per-output", paramLabel = "N",
            defaultValue = "" + RoutingLimits.DEFAULT_MAX_RECORDS,
            description = "Records one model output may become (a block on each of its channels, its calls and "
                    + "events); more is dead-lettered whole (default: ${DEFAULT-VALUE}).")
    int maxRecordsPerOutput;

    @Option(names = "--redaction-config", paramLabel = "FILE",
            description = "Content-policy rules and profanity list (format in docs/redaction.md).")
    Path redactionConfig;

    RoutingLimits limits() {
        return new RoutingLimits(maxBlocksPerOutput, maxRecordsPerOutput);
    }

    Settings.RoutingSettings settings(RoutingLimits limits) {
        return new Settings.RoutingSettings(Optional.ofNullable(destinations), Optional.ofNullable(redactionConfig),
                limits);
    }
}
