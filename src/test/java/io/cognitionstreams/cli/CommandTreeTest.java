package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command and subcommand of the tree, as the launcher runs it: --help prints the usage and exits 0 whatever
 * the command requires, an unknown flag exits 2; --version belongs to the top-level command only.
 */
class CommandTreeTest {

    @TestFactory
    Stream<DynamicTest> everyCommandPrintsItsUsageOnHelp() {
        return commands().stream().flatMap(path -> Stream.of("--help", "-h").map(help -> DynamicTest.dynamicTest(
                display(path) + " " + help, () -> {
                    Cli ran = Cli.run(args(path, help));

                    assertThat(ran.exitCode()).as(ran.err()).isZero();
                    assertThat(ran.out()).contains("Usage: " + display(path));
                    assertThat(ran.err()).isEmpty();
                })));
    }

    @TestFactory
    Stream<DynamicTest> everyCommandRefusesAnUnknownFlag() {
        return commands().stream().map(path -> DynamicTest.dynamicTest(display(path) + " --no-such-flag", () -> {
            Cli ran = Cli.run(args(path, "--no-such-flag"));

            assertThat(ran.exitCode()).as(ran.out() + ran.err()).isEqualTo(2);
            // Picocli prints a near option instead of the usage when there is one (`council vote` has --no).
            assertThat(ran.err()).contains("--no-such-flag").containsAnyOf("Usage: " + display(path),
                    "Possible solutions: ");
        }));
    }

    @Test
    void onlyTheTopLevelCommandHasVersionHelp() {
        CommandLine root = CognitionCli.commandLine();
        assertThat(Cli.run("--version").out()).startsWith("cognition-streams ");
        assertThat(Cli.run("-V").exitCode()).isZero();

        List<String> withVersionHelp = new ArrayList<>();
        walk(root, List.of(), (path, command) -> {
            if (!path.isEmpty() && command.getCommandSpec().options().stream().anyMatch(OptionSpec::versionHelp)) {
                withVersionHelp.add(display(path));
            }
        });
        assertThat(withVersionHelp).isEmpty();
    }

    @Test
    void aSubcommandsOwnVersionOptionIsNotShadowed() {
        CommandLine.ParseResult parsed = CognitionCli.commandLine()
                .parseArgs("identity", "set", "--file", "f", "--author", "azrael", "--version", "5");

        CommandLine.ParseResult set = parsed.subcommand().subcommand();
        assertThat(set.commandSpec().name()).isEqualTo("set");
        assertThat(set.<Integer>matchedOptionValue("--version", 0)).isEqualTo(5);
    }

    @Test
    void theGroupWithoutItsSubcommandRefusesTheSubcommandsOptions(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("identity.txt"), "I am Gaia.");

        // Before, identity's own --version swallowed the rest: nothing written, nothing printed, exit 0.
        Cli ran = Cli.run("identity", "--file", text.toString(), "--version", "5", "--author", "azrael");

        assertThat(ran.exitCode()).isEqualTo(2);
        assertThat(ran.err()).contains("Unknown options").contains("--version");
    }

    @Test
    void helpWinsOverMissingRequiredOptions() {
        Cli ran = Cli.run("identity", "set", "--help");

        assertThat(ran.exitCode()).isZero();
        assertThat(ran.err()).isEmpty();
        assertThat(ran.out()).startsWith("Usage: cognition identity set").doesNotContain("Missing required");
    }

    @Test
    void helpNamesAnyCommandOfTheTree() {
        assertThat(Cli.run("help", "identity", "set").out()).startsWith("Usage: cognition identity set");

        Cli unknown = Cli.run("help", "identity", "unset");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).startsWith("Unknown command 'unset'.");
    }

    /** Every command path, the top-level command's (empty) included. */
    private static List<List<String>> commands() {
        List<List<String>> paths = new ArrayList<>();
        walk(CognitionCli.commandLine(), List.of(), (path, command) -> paths.add(path));
        assertThat(paths).hasSizeGreaterThan(25);
        return paths;
    }

    private interface Visitor {
        void visit(List<String> path, CommandLine command);
    }

    private static void walk(CommandLine command, List<String> path, Visitor visitor) {
        visitor.visit(path, command);
        for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
            List<String> subPath = new ArrayList<>(path);
            subPath.add(sub.getKey());
            walk(sub.getValue(), subPath, visitor);
        }
    }

    private static String[] args(List<String> path, String... more) {
        return Stream.concat(path.stream(), Stream.of(more)).toArray(String[]::new);
    }

    private static String display(List<String> path) {
        return Stream.concat(Stream.of("cognition"), path.stream()).reduce((a, b) -> a + " " + b).orElseThrow();
    }
}
