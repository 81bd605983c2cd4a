package io.cognitionstreams.cli;

import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * `cognition help [COMMAND...]`. Not picocli's HelpCommand: being a help command, that one ignored an unknown
 * flag and printed the top-level usage with exit 0.
 */
@Command(name = "help", description = "Shows the usage of a command, e.g. `cognition help identity set`.")
final class HelpCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command, with its subcommands.")
    List<String> path = List.of();

    @Override
    public Integer call() {
        CommandLine command = spec.parent().commandLine();
        for (String name : path) {
            CommandLine sub = command.getSubcommands().get(name);
            if (sub == null) {
                throw new ParameterException(command, "Unknown command '" + name + "'.");
            }
            command = sub;
        }
        command.usage(spec.commandLine().getOut());
        return 0;
    }
}
