package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.McpServerConfig;
import picocli.CommandLine.Option;

/** The tool loop's flags on `run`: which MCP servers approved calls use, and how the loop behaves. */
final class ExecutorOptions {

    @Option(names = "--mcp-server", paramLabel = "NAME=COMMAND|URL",
            description = "An MCP server approved calls may use, repeatable: NAME=COMMAND [ARG...] (stdio) or "
                    + "NAME=https://... (streamable HTTP). Its tools are called mcp__NAME__TOOL (or NAME.TOOL).")
    List<String> mcpServers = new ArrayList<>();

    @Option(names = "--mcp-config", paramLabel = "FILE",
            description = "MCP servers from a file in the mcpServers format of Claude Desktop, Cursor and .mcp.json.")
    Path mcpConfig;

    @Option(names = "--tool-timeout", defaultValue = "60s",
            description = "Longest one tool call may run before it times out (default: ${DEFAULT-VALUE}).")
    Duration toolTimeout;

    @Option(names = "--executor-threads", defaultValue = "" + ExecutorSettings.DEFAULT_THREADS, paramLabel = "N",
            description = "Tool calls run in parallel, one session each (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--signing-key", paramLabel = "FILE",
            description = "The gatekeeper's Ed25519 key (PEM, with its public half in FILE.pub), which signs every "
                    + "approval; instances that share work must share it. Default: <state-dir>/keys/"
                    + "gatekeeper-ed25519.pem, made on first start.")
    Path signingKey;

    @Option(names = "--trust-gatekeeper-key", paramLabel = "FILE",
            description = "Another gatekeeper public key (PEM) whose approvals the executor runs, repeatable.")
    List<Path> trustedKeys = new ArrayList<>();

    @Option(names = "--auto-continue-steps", defaultValue = "0", paramLabel = "N",
            description = "Turns a session may take on its own once its tool results are in; past N in a row an "
                    + "ESCALATION goes to the council. 0 (the default) waits for the agent.")
    int autoContinueSteps;

    /** @param extra servers the command adds itself (the demo's) */
    ExecutorSettings settings(List<McpServerConfig> extra) {
        List<McpServerConfig> servers = new ArrayList<>(extra);
        if (mcpConfig != null) {
            servers.addAll(McpServerConfig.readFile(mcpConfig));
        }
        mcpServers.forEach(spec -> servers.add(McpServerConfig.parse(spec)));
        return new ExecutorSettings(servers, toolTimeout, threads, ExecutorSettings.DEFAULT_MAX_RESULT_BYTES,
                Optional.ofNullable(signingKey), trustedKeys, autoContinueSteps);
    }
}
