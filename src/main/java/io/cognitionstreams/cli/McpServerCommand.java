package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.load.StepServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "mcp-server",
        description = {"Serves the MCP server shipped with the app on stdin/stdout, for an MCP client (the "
                + "executor, or any other) to start.",
                "workspace: read-only list_files and read_file under --root, and a clock. `run --demo` starts it "
                        + "itself; to use it outside the demo: --mcp-server 'workspace=bin/cognition mcp-server "
                        + "workspace --root DIR'.",
                "steps: one tool, step, that appends a line to --log and waits; `bench --tools` starts it."})
final class McpServerCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SERVER", description = "The server to serve: workspace or steps.")
    String server;

    @Option(names = "--root", defaultValue = ".", paramLabel = "DIR",
            description = "The directory the workspace server shows (default: the current one).")
    Path root;

    @Option(names = "--log", paramLabel = "FILE",
            description = "Where the steps server notes each step it takes.")
    Path log;

    @Override
    public Integer call() throws Exception {
        if (WorkspaceServer.NAME.equals(server)) {
            new WorkspaceServer(root).serve();
        } else if (StepServer.NAME.equals(server) && log != null) {
            new StepServer(log).serve();
        } else if (StepServer.NAME.equals(server)) {
            throw new IllegalArgumentException("the steps server needs --log FILE");
        } else {
            throw new IllegalArgumentException("no shipped MCP server is named " + server + "; there are: "
                    + WorkspaceServer.NAME + ", " + StepServer.NAME);
        }
        return 0;
    }
}
