package io.cognitionstreams.cli;

import java.time.Duration;

import picocli.CommandLine.Option;

/** The demo: its requests, and whether `run` stops once they are answered. Options of `run`. */
final class DemoOptions {

    @Option(names = "--demo", description = "Send demo requests (and one malformed record) and print what the "
            + "channel topics, tool.calls and the dead-letter topic receive.")
    boolean demo;

    @Option(names = "--exit-after-demo", description = "With --demo: stop once every demo request is answered.")
    boolean exitAfterDemo;

    @Option(names = "--demo-timeout", defaultValue = "120s",
            description = "With --exit-after-demo: give up (exit 1) after this long (default: ${DEFAULT-VALUE}).")
    Duration demoTimeout;
}
