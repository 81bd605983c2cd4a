package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.Optional;

import io.cognitionstreams.gatekeeper.CognitiveLoad;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import picocli.CommandLine.Option;

/** The gatekeeper: its root caller, the cognitive-load threshold, how long results are kept for replays. Options of `run`. */
final class GatekeeperOptions {

    @Option(names = "--root-caller", paramLabel = "NAME",
            description = "Caller whose tool calls the gatekeeper approves without a permission check (each one is "
                    + "recorded as a PRIVILEGED_CALL event). Default: none.")
    String rootCaller;

    @Option(names = "--cognitive-load-threshold", paramLabel = "N",
            defaultValue = "" + CognitiveLoad.DEFAULT_THRESHOLD,
            description = "Active skills a session may have before its tool results carry a cognitive-load warning "
                    + "(default: ${DEFAULT-VALUE}).")
    int cognitiveLoadThreshold;

    @Option(names = "--recorded-results-retention", defaultValue = "7d", paramLabel = "DURATION",
            description = "How long the gatekeeper keeps each tool result for a replay of its session to answer "
                    + "with; match it to cognition.requests' retention (default: ${DEFAULT-VALUE}).")
    Duration recordedResultsRetention;

    GatekeeperSettings settings() {
        return new GatekeeperSettings(Optional.ofNullable(rootCaller), cognitiveLoadThreshold,
                recordedResultsRetention);
    }
}
