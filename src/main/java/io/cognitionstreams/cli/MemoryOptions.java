package io.cognitionstreams.cli;

import java.time.Duration;

import java.util.Locale;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.assembly.MemoryRetention;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * Episodic memory's retention and embedder, shared by `run` and `bench`, so a benchmark keeps memory as a run would.
 */
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

    @Option(names = "--memory-embedder", paramLabel = "static|minilm", defaultValue = "minilm",
            converter = EmbedderName.class,
            description = "What embeds prompts and memories: minilm, all-MiniLM-L6-v2 (about 5.5 ms of CPU a prompt), "
                    + "or static, a table distilled from it (about 0.03 ms, lower recall; docs/assembly.md). Entries "
                    + "of the other model are embedded again from their text when loaded (default: ${DEFAULT-VALUE}).")
    Settings.MemoryEmbedder embedder;

    @Option(names = "--memory-cache", paramLabel = "SIZE", defaultValue = "64MiB",
            converter = ByteSizeConverter.class,
            description = "Heap for the memory scopes in use, each instance's: their memories in compact form, "
                    + "loaded from the state store when a turn needs them; past it the least used leave (default: "
                    + "${DEFAULT-VALUE}, about 75,000 distinct memories).")
    long cacheBytes;

    @Option(names = "--session-idle", paramLabel = "DURATION", defaultValue = Settings.MemorySettings.DEFAULT_IDLE,
            description = "A session or memory scope unused this long leaves the heap; everything of it stays in the "
                    + "state stores and their changelogs and comes back with its next request (docs/assembly.md, "
                    + "\"Idle sessions\") (default: ${DEFAULT-VALUE}).")
    Duration idle;

    Settings.MemorySettings settings() {
        return new Settings.MemorySettings(new MemoryRetention(maxEntries, maxAge), embedder, cacheBytes, idle);
    }

    /** Lower-case names on the command line, as the docs write them. */
    static final class EmbedderName implements ITypeConverter<Settings.MemoryEmbedder> {
        @Override
        public Settings.MemoryEmbedder convert(String value) {
            try {
                return Settings.MemoryEmbedder.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not static or minilm");
            }
        }
    }
}
