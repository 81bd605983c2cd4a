package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.executor.McpServers;
import io.cognitionstreams.executor.Outcome;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.load.StepServer;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.testing.Cli;

/**
 * `cognition mcp-server workspace --root DIR` in its own JVM, spoken to by an MCP client as any client would start it
 * (the executor's client, over stdio): its tools list, a read inside the root, and a read that leads out of it; and
 * the steps server `bench --tools` calls.
 */
class McpServerCommandTest {

    @Test
    void theWorkspaceServerServesItsRootAndNothingOutsideIt(@TempDir Path dir) throws Exception {
        Path root = Files.createDirectories(dir.resolve("workspace"));
        Files.writeString(root.resolve("notes.md"), "release 2.4.0 is tagged");
        Files.writeString(dir.resolve("secret.txt"), "hunter2");

        try (McpServers servers = new McpServers(List.of(WorkspaceServer.demoConfig(root)), Duration.ofSeconds(60),
                64 * 1024)) {
            assertThat(servers.start()).extracting(McpServers.OfferedTool::name).containsExactlyInAnyOrder(
                    "mcp__workspace__list_files", "mcp__workspace__read_file", "mcp__workspace__clock");

            Outcome listing = servers.call(WorkspaceServer.NAME, "list_files", Map.of());
            assertThat(listing.status()).as(listing.toString()).isEqualTo(ToolStatus.SUCCEEDED);
            assertThat(listing.text()).isEqualTo("notes.md (23 bytes)");
            assertThat(servers.call(WorkspaceServer.NAME, "read_file", Map.of("path", "notes.md")).text())
                    .isEqualTo("release 2.4.0 is tagged");

            Outcome escape = servers.call(WorkspaceServer.NAME, "read_file", Map.of("path", "../secret.txt"));
            assertThat(escape.status()).isEqualTo(ToolStatus.FAILED);
            assertThat(escape.text() + " " + escape.error()).contains("outside the workspace")
                    .doesNotContain("hunter2");
        }
    }

    @Test
    void anUnknownServerIsRefusedWithTheOnesThereAre(@TempDir Path dir) throws Exception {
        Cli cli = Cli.launch(dir, "mcp-server", "filesystem");
        assertThat(cli.exitCode()).isNotZero();
        assertThat(cli.err()).contains("no shipped MCP server is named filesystem; there are: workspace, steps");
    }

    /** `cognition mcp-server steps --log FILE`, as `bench --tools` has the executor start it. */
    @Test
    void theStepsServerNotesEachStepAndSaysItMayNotRunTwice(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("steps.log");
        try (McpServers servers = new McpServers(List.of(StepServer.config(log)), Duration.ofSeconds(60),
                64 * 1024)) {
            assertThat(servers.start()).singleElement().satisfies(tool -> {
                assertThat(tool.name()).isEqualTo(StepServer.CALLED);
                assertThat(tool.retrySafe()).as("neither read-only nor idempotent").isFalse();
            });
            Outcome first = servers.call(StepServer.NAME, StepServer.TOOL, Map.of("session", "b-s0", "n", 1, "ms", 0));
            assertThat(first.status()).as(first.toString()).isEqualTo(ToolStatus.SUCCEEDED);
            assertThat(first.text()).isEqualTo("step 1 of b-s0 done");
            servers.call(StepServer.NAME, StepServer.TOOL, Map.of("session", "b-s0", "n", 2, "ms", 0));
            assertThat(servers.call(StepServer.NAME, StepServer.TOOL, Map.of("n", "two")).status())
                    .isEqualTo(ToolStatus.FAILED);
        }
        assertThat(Files.readAllLines(log)).containsExactly("b-s0 1", "b-s0 2");
        assertThat(StepServer.runs(log, "b-")).containsOnly(Map.entry("b-s0 1", 1), Map.entry("b-s0 2", 1));
    }
}
