package io.cognitionstreams.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the `cognition` command. */
@Command(name = "cognition", mixinStandardHelpOptions = true, version = "cognition-streams 0.1.0",
        description = "Keeps LLM agents on their rules, in budget and safe, as Kafka Streams topologies.",
        subcommands = {RunCommand.class, ProduceCommand.class, TailCommand.class, TopicsCommand.class,
                SkillsCommand.class, PersonaCommand.class, IdentityCommand.class, GatekeeperCommand.class,
                CouncilCommand.class, CheckpointsCommand.class, ReplayCommand.class, ForkCommand.class,
                RewindCommand.class, SessionCommand.class, MemoryCommand.class, BenchCommand.class,
                SchemaCommand.class, AclCommand.class,
                McpServerCommand.class, CommandLine.HelpCommand.class})
public final class CognitionCli {

    public static void main(String[] args) {
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
        commandLine.registerConverter(java.time.Duration.class, new DurationConverter());
        ProduceCommand.describeKeys(commandLine.getSubcommands().get("produce").getCommandSpec());
        commandLine.setExecutionExceptionHandler((error, cmd, parsed) -> {
            cmd.getErr().println("error: " + Refusal.describe(error, cmd).orElseGet(() -> rootMessage(error)));
            return 2;
        });
        return commandLine;
    }

    static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }
}
