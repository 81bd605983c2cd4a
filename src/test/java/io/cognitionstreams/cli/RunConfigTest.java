package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import picocli.CommandLine;

/** `run`'s settings from flags, COGNITION_* variables and --config, in that order, and --print-config. */
class RunConfigTest {

    @TempDir
    Path dir;

    @Test
    void aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws Exception {
        Path file = dir.resolve("run.properties");
        Files.writeString(file, """
                # telemetry
                metrics-port = 9464
                # run
                partitions = 6
                threads = 3
                council-quorum = 3
                demo = true
                """);
        String[] args = {"run", "--config", file.toString(), "--threads", "2", "--print-config"};
        CommandLine cognition = CognitionCli.commandLine();
        CommandLine run = cognition.getSubcommands().get("run");
        RunConfig config = RunConfig.of(args, Map.of("COGNITION_PARTITIONS", "4", "COGNITION_MODEL_API_KEY_ENV",
                "SOME_KEY"));
        run.setDefaultValueProvider(config);
        cognition.parseArgs(args);
        RunCommand command = run.getCommand();

        assertThat(command.threads).as("flag").isEqualTo(2);
        assertThat(command.partitions).as("environment over file").isEqualTo(4);
        assertThat(command.councils.councilQuorum).as("file").isEqualTo(3);
        assertThat(command.telemetry.metricsPort).as("file, in a room's options").isEqualTo(9464);
        assertThat(command.demoRun.demo).as("a switch from the file").isTrue();
        assertThat(command.embedded.port).as("default").isEqualTo(9092);

        StringWriter printed = new StringWriter();
        config.print(run.getCommandSpec(), new PrintWriter(printed));
        assertThat(printed.toString())
                .contains("# from flag\nthreads = 2")
                .contains("# from environment COGNITION_PARTITIONS\npartitions = 4")
                .contains("# from config file\ncouncil-quorum = 3")
                .contains("# --- telemetry\n# from config file\nmetrics-port = 9464")
                .contains("\nport = 9092\n")
                .contains("model-api-key-env = SOME_KEY")
                .containsPattern("# from environment COGNITION_MODEL_API_KEY_ENV; \\$SOME_KEY is (not )?set");
    }

    @Test
    void everyFlagOfRunIsSettableThereAndTheFileIsCheckedForTypos() throws Exception {
        CommandLine run = CognitionCli.commandLine().getSubcommands().get("run");
        StringBuilder everyName = new StringBuilder();
        run.getCommandSpec().options().forEach(option -> everyName.append(option.longestName().substring(2))
                .append(" = x\n"));
        Path all = dir.resolve("all.properties");
        Files.writeString(all, everyName.toString());
        assertThat(RunConfig.of(new String[] {"run", "--config", all.toString()}, Map.of())
                .unknownKeys(run.getCommandSpec())).isEmpty();

        Path typo = dir.resolve("typo.properties");
        Files.writeString(typo, "metrcs-port = 9464\n");
        Cli refused = Cli.run("run", "--config", typo.toString(), "--data-dir", dir.resolve("unused").toString());
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.err()).contains("sets metrcs-port, which no flag of run is named");
        assertThat(dir.resolve("unused")).as("nothing started").doesNotExist();

        Cli missing = Cli.run("run", "--config", dir.resolve("nope.properties").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("cannot read the config file").contains("no such file");
    }

    @Test
    void printConfigPrintsAFileThatRunReadsBackAndStartsNothing() throws Exception {
        Cli printed = Cli.run("run", "--partitions", "5", "--metrics-port", "9999", "--print-config",
                "--data-dir", dir.resolve("unused").toString());
        assertThat(printed.exitCode()).as(printed.err()).isZero();
        assertThat(dir.resolve("unused")).as("nothing started").doesNotExist();
        Path file = dir.resolve("printed.properties");
        Files.writeString(file, printed.out());

        Cli again = Cli.run("run", "--config", file.toString(), "--print-config");
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).contains("# from config file\npartitions = 5")
                .contains("# from config file\nmetrics-port = 9999");
    }
}
