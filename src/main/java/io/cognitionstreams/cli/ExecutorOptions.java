package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.McpServerConfig;
import io.cognitionstreams.executor.shell.ShellSettings;
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

    @Option(names = "--auto-continue-steps", paramLabel = "N",
            description = "Turns a session may take on its own once its tool results are in; past N in a row an "
                    + "ESCALATION goes to the council. Default 0 (the next turn waits for the agent); 1 with --demo.")
    Integer autoContinueSteps;

    @Option(names = "--shell-executor",
            description = "Run approved shell.run calls with /bin/sh, one working directory per session under "
                    + "--shell-root, in bubblewrap where it works (docs/executor-shell.md). Off by default: the "
                    + "commands then only reach channel.shell.")
    boolean shellExecutor;

    @Option(names = "--shell-root", paramLabel = "DIR",
            description = "Where the shell executor makes each session's working directory (default: "
                    + "<data-dir>/shell).")
    Path shellRoot;

    @Option(names = "--shell-isolation", defaultValue = "AUTO", paramLabel = "AUTO|BWRAP|NONE",
            description = "AUTO: bubblewrap when it works here, else none; BWRAP: refuse to start without it; NONE: "
                    + "no sandbox (default: ${DEFAULT-VALUE}).")
    ShellSettings.Isolation shellIsolation;

    @Option(names = "--shell-env", paramLabel = "NAME",
            description = "An environment variable commands may see, besides PATH, LANG, LC_ALL, TZ and TERM; "
                    + "repeatable. Every other variable, secrets included, stays out.")
    List<String> shellEnv = new ArrayList<>();

    /**
     * @param extra   servers the command adds itself (the demo's)
     * @param dataDir where the shell's session directories go unless --shell-root says otherwise
     * @param demo    whether this is `run --demo`, whose tool loop shows a session's next turn
     */
    ExecutorSettings settings(List<McpServerConfig> extra, Path dataDir, boolean demo) {
        List<McpServerConfig> servers = new ArrayList<>(extra);
        if (mcpConfig != null) {
            servers.addAll(McpServerConfig.readFile(mcpConfig));
        }
        mcpServers.forEach(spec -> servers.add(McpServerConfig.parse(spec)));
        Optional<ShellSettings> shell = Optional.empty();
        if (shellExecutor) {
            List<String> env = new ArrayList<>(ShellSettings.DEFAULT_ENV_ALLOW_LIST);
            env.addAll(shellEnv);
            shell = Optional.of(new ShellSettings(shellRoot != null ? shellRoot : dataDir.resolve("shell"),
                    toolTimeout, ShellSettings.DEFAULT_MAX_BYTES_PER_STREAM, env, shellIsolation,
                    ShellSettings.DEFAULT_KILL_GRACE));
        } else if (shellRoot != null || !shellEnv.isEmpty()) {
            throw new IllegalArgumentException("--shell-root and --shell-env need --shell-executor");
        }
        return new ExecutorSettings(servers, toolTimeout, threads, ExecutorSettings.DEFAULT_MAX_RESULT_BYTES,
                Optional.ofNullable(signingKey), trustedKeys,
                autoContinueSteps != null ? autoContinueSteps : demo ? 1 : 0, shell);
    }
}
