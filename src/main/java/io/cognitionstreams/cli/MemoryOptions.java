package io.cognitionstreams.cli;

import java.time.Duration;

import io.cognitionstreams.assembly.MemoryRetention;
import picocli.CommandLine.Option;

/** Episodic memory's retention, shared by `run` and `bench`, so a benchmark keeps memory as a run would. */
final class MemoryOptions {

    @Option(names = "--memory-max-entries", paramLabel = "N",
            defaultValue = "" + MemoryRetention.DEFAULT_MAX_ENTRIES,
            description = "Episodic memories each memory scope keeps; past it the oldest are forgotten (tombstones "
                    + "on cognition.memory). 0 keeps any number (default: ${DEFAULT-VALUE}).")
    int maxEntries;

    @Option(names = "--memory-max-age", paramLabel = "DURATION", defaultValue = MemoryRetention.DEFAULT_MAX_AGE,
            description = "How long an episodic memory is kept after it was written; checked every minute. 0s keeps "
                    + "memories of any age (default: ${DEFAULT-VALUE}).")
    Duration maxAge;

    MemoryRetention retention() {
        return new MemoryRetention(maxEntries, maxAge);
    }
}
