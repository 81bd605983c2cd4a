package io.cognitionstreams.cli;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/** The embedded broker `run` starts when no cluster is named: where it keeps its data and listens. Options of `run`. */
final class BrokerOptions {

    @Option(names = "--data-dir", defaultValue = "data", paramLabel = "DIR",
            description = "Embedded broker data and state stores (default: ${DEFAULT-VALUE}). Kept across restarts.")
    Path dataDir;

    @Option(names = "--port", defaultValue = "9092", description = "Embedded broker port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--controller-port", defaultValue = "9093",
            description = "Embedded broker's KRaft controller port (default: ${DEFAULT-VALUE}).")
    int controllerPort;
}
