package io.cognitionstreams.testing;

import java.io.PrintStream;
import java.util.List;
import java.util.OptionalInt;

import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Flags of the mains in the test sources: the long runs under bin/ (bin/crash-test, bin/soak, ...) and ProduceBench.
 * Each declares its flags once, as a picocli {@code @Command} class like the `cognition` commands; this parses the
 * arguments into it, so that a mistyped flag stops the run before it starts anything rather than being ignored in
 * favour of a default run of tens of minutes.
 */
public final class RunArgs {

    private RunArgs() {
    }

    /**
     * {@code flags} filled from {@code args}; on {@code --help} prints the usage and exits 0, on an unknown flag, a
     * flag without its value or a value that does not parse prints the error and the usage on stderr and exits 2.
     */
    public static <T> T parseOrExit(T flags, String... args) {
        OptionalInt exit = parse(flags, args, System.out, System.err);
        if (exit.isPresent()) {
            System.exit(exit.getAsInt());
        }
        return flags;
    }

    /** {@link #parseOrExit} short of exiting: the exit code when the run must not start, else empty. */
    public static OptionalInt parse(Object flags, String[] args, PrintStream out, PrintStream err) {
        CommandLine commandLine = new CommandLine(flags);
        // Options in the order each run declares them, as its script lists them, not alphabetical.
        commandLine.getCommandSpec().usageMessage().sortOptions(false).sortSynopsis(false);
        commandLine.getCommandSpec().addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
                .description("Print this help and exit, starting nothing.").build());
        try {
            commandLine.parseArgs(args);
            if (commandLine.isUsageHelpRequested()) {
                commandLine.usage(out);
                return OptionalInt.of(0);
            }
            requireAfterDelimiter(commandLine, List.of(args));
        } catch (ParameterException e) {
            err.println(e.getMessage());
            commandLine.usage(err);
            return OptionalInt.of(2);
        }
        return OptionalInt.empty();
    }

    /**
     * A run's positional parameters are flags it hands on (bin/takeover's to `cognition run`), taken after
     * {@code --} only: picocli would take a stray word before it too, which the app would refuse only once started.
     */
    private static void requireAfterDelimiter(CommandLine commandLine, List<String> args) {
        int delimiter = args.indexOf("--");
        int after = delimiter < 0 ? 0 : args.size() - delimiter - 1;
        List<String> positional = commandLine.getCommandSpec().positionalParameters().stream()
                .flatMap(spec -> spec.originalStringValues().stream()).toList();
        if (positional.size() > after) {
            throw new ParameterException(commandLine, "Unmatched argument before --: '"
                    + String.join("', '", positional.subList(0, positional.size() - after)) + "'");
        }
    }

    /** The {@code --seed} of the runs that draw at random (kill times, victims, records): a run repeats with it. */
    public static final class Seed {

        @Option(names = "--seed", paramLabel = "S",
                description = "Seed of the run's random choices; printed, to repeat a run (default: the current time).")
        public long value = System.currentTimeMillis();
    }
}
