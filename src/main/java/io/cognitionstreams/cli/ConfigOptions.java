package io.cognitionstreams.cli;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/** Where `run`'s settings come from besides its flags, and a look at what they add up to (RunConfig). */
final class ConfigOptions {

    @Option(names = "--config", paramLabel = "FILE",
            description = "A properties file of settings, one flag a line without its dashes (metrics-port = 9464); "
                    + "a flag given wins over COGNITION_<FLAG> in the environment, which wins over the file. "
                    + "Default: the file $COGNITION_CONFIG names, if any.")
    Path file;

    @Option(names = "--print-config", description = "Print the effective settings, grouped by room, with where each "
            + "came from (secrets masked), in the file's format, and exit without starting anything.")
    boolean print;
}
