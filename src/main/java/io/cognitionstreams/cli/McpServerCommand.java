package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.cognitionstreams.executor.demo.WorkspaceServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "mcp-server",
        description = {"Serves the MCP server shipped with the app on stdin/stdout, for an MCP client (the "
                + "executor, or any other) to start.",
                "workspace: read-only list_files and read_file under --root, and a clock. `run --demo` starts it "
                        + "itself; to use it outside the demo: --mcp-server 'workspace=bin/cognition mcp-server "
                        + "workspace --root DIR'."})
final class McpServerCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SERVER", description = "The server to serve: workspace.")
    String server;

    @Option(names = "--root", defaultValue = ".", paramLabel = "DIR",
            description = "The directory the workspace server shows (default: the current one).")
    Path root;

    @Override
    public Integer call() throws Exception {
        if (!WorkspaceServer.NAME.equals(server)) {
            throw new IllegalArgumentException("no shipped MCP server is named " + server + "; there is: "
                    + WorkspaceServer.NAME);
        }
        new WorkspaceServer(root).serve();
        return 0;
    }
}
