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

    Settings.MemorySettings settings() {
        Settings.MemorySettings defaults = Settings.MemorySettings.defaults();
        return new Settings.MemorySettings(new MemoryRetention(maxEntries, maxAge), embedder, defaults.cacheBytes(),
                defaults.idle());
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
