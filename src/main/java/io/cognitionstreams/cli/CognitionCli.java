package io.cognitionstreams.cli;

import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/** Entry point of the `cognition` command. */
@Command(name = "cognition", version = "cognition-streams 0.1.0",
        description = "Keeps LLM agents on their rules, in budget and safe, as Kafka Streams topologies.",
        subcommands = {RunCommand.class, ProduceCommand.class, TailCommand.class, TopicsCommand.class,
                SkillsCommand.class, PersonaCommand.class, IdentityCommand.class, GatekeeperCommand.class,
                CouncilCommand.class, CheckpointsCommand.class, ReplayCommand.class, ForkCommand.class,
                RewindCommand.class, SessionCommand.class, MemoryCommand.class, BenchCommand.class,
                SchemaCommand.class, AclCommand.class,
                McpServerCommand.class, HelpCommand.class})
public final class CognitionCli {

    private static final String HELP = "Show this help message and exit.";

    /*
     * Not picocli's standard help mixin on every command: its -V/--version, on a command group, swallowed the
     * subcommand's own --version (`identity --version 5 ...` printed nothing and exited 0), and on `identity set`
     * it displaced -h, so --help there failed on the missing required options. --version belongs to the top-level
     * command alone; every command gets -h/--help from commandLine().
     */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = HELP)
    boolean help;

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "Print version information and exit.")
    boolean version;

    public static void main(String[] args) {
        ScratchDirectory.claim();
        System.exit(execute(args));
    }

    /**
     * Runs a command as {@link #main} does, on the real standard streams, short of exiting. What a command printed
     * is flushed before the exit code is returned: picocli's writers flush on {@code println} only, and a view
     * written with {@code print} was lost at {@code System.exit} ({@code cognition gatekeeper --session} printed
     * nothing).
     */
    public static int execute(String... args) {
        CommandLine commandLine = commandLine();
        if (args.length > 0 && args[0].equals("run")) {
            // `run`'s flags may come from the environment and a config file too; which file is known only from the
            // arguments, before picocli parses them.
            try {
                commandLine.getSubcommands().get("run").setDefaultValueProvider(RunConfig.of(args, System.getenv()));
            } catch (IllegalArgumentException e) {
                commandLine.getErr().println("error: " + e.getMessage());
                commandLine.getErr().flush();
                return 2;
            }
        }
        try {
            return commandLine.execute(args);
        } finally {
            commandLine.getOut().flush();
            commandLine.getErr().flush();
        }
    }

    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new CognitionCli());
        addHelpOptions(commandLine);
        commandLine.registerConverter(java.time.Duration.class, new DurationConverter());
        ProduceCommand.describeKeys(commandLine.getSubcommands().get("produce").getCommandSpec());
        IParameterExceptionHandler standard = commandLine.getParameterExceptionHandler();
        commandLine.setParameterExceptionHandler((error, args) -> standard.handleParseException(unknownFirst(error),
                args));
        commandLine.setExecutionExceptionHandler((error, cmd, parsed) -> {
            cmd.getErr().println("error: " + Refusal.describe(error, cmd).orElseGet(() -> rootMessage(error)));
            return 2;
        });
        return commandLine;
    }

    /**
     * Picocli's own refusal, except that an unknown option is named before the required options it may stand in
     * for: `tail --topci x` should say what was mistyped, not that --topic is missing.
     */
    private static ParameterException unknownFirst(ParameterException error) {
        List<String> unmatched = error.getCommandLine().getUnmatchedArguments();
        return error instanceof MissingParameterException && !unmatched.isEmpty()
                ? new UnmatchedArgumentException(error.getCommandLine(), unmatched)
                : error;
    }

    /** Gives every subcommand that has none a -h/--help (picocli's own `help` command has its own). */
    private static void addHelpOptions(CommandLine parent) {
        for (CommandLine command : parent.getSubcommands().values()) {
            CommandSpec spec = command.getCommandSpec();
            if (spec.findOption("--help") == null && spec.findOption("-h") == null) {
                spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description(HELP).build());
            }
            addHelpOptions(command);
        }
    }

    static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }
}
