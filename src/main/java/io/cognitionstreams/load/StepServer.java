package io.cognitionstreams.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.executor.McpServerConfig;
import io.cognitionstreams.executor.demo.SerialStdio;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The MCP server `cognition bench --tools` calls: one tool, {@code step {session, n, ms}}, with a side effect as
 * small as one can be, a line {@code <session> <n>} appended to a log, then a sleep of {@code ms} (0 for a fast
 * step). It says neither read-only nor idempotent, so the executor runs it at most once, its STARTED mark committed
 * before it starts: the path a real side effect takes. The log is how the bench counts runs: a call that ran twice
 * has two lines.
 */
public final class StepServer {

    public static final String NAME = "steps";
    public static final String TOOL = "step";
    /** What a model calls it: {@code mcp__steps__step}. */
    public static final String CALLED = "mcp__" + NAME + "__" + TOOL;

    private final FileChannel log;

    public StepServer(Path log) throws IOException {
        this.log = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
    }

    /** How the executor starts it: this JVM's java and class path, the CLI's `mcp-server steps --log FILE`. */
    public static McpServerConfig config(Path log) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new McpServerConfig(NAME, List.of(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), "io.cognitionstreams.cli.CognitionCli", "mcp-server", NAME,
                "--log", log.toAbsolutePath().toString()), Map.of(), Optional.empty());
    }

    /** Serves on stdin/stdout until the process that started this one is gone. */
    public void serve() throws InterruptedException {
        JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
        McpSyncServer server = McpServer.sync(new SerialStdio(json))
                .serverInfo("cognition-streams-steps", "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .toolCall(WorkspaceServer.tool(TOOL, "Take step n of a session: note it, then wait ms milliseconds "
                        + "(0 for none).", Map.of("session", "string", "n", "integer", "ms", "integer"), false,
                        false), (exchange, request) -> step(request.arguments()))
                .build();
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        while (ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L) == parent) {
            Thread.sleep(500);
        }
        server.closeGracefully();
    }

    private McpSchema.CallToolResult step(Map<String, Object> arguments) {
        String session = String.valueOf(arguments == null ? null : arguments.get("session"));
        Object n = arguments == null ? null : arguments.get("n");
        Object ms = arguments == null ? null : arguments.get("ms");
        if (session.isBlank() || session.contains(" ") || !(n instanceof Number)) {
            return McpSchema.CallToolResult.builder().addTextContent("step takes {session, n, ms}, got " + arguments)
                    .isError(true).build();
        }
        try {
            // One write of a whole line per call, appended: lines of calls running at once never interleave.
            log.write(ByteBuffer.wrap((session + " " + n + "\n").getBytes(StandardCharsets.UTF_8)));
            if (ms instanceof Number wait && wait.longValue() > 0) {
                Thread.sleep(wait.longValue());
            }
        } catch (IOException e) {
            return McpSchema.CallToolResult.builder().addTextContent("cannot note the step: " + e).isError(true)
                    .build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return McpSchema.CallToolResult.builder().addTextContent("step " + n + " of " + session + " done")
                .isError(false).build();
    }

    /** How often each step ran, by {@code <session> <n>}, of the sessions whose id starts with {@code prefix}. */
    public static Map<String, Integer> runs(Path log, String prefix) {
        Map<String, Integer> runs = new HashMap<>();
        try {
            if (!Files.exists(log)) {
                return runs;
            }
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.startsWith(prefix)) {
                    runs.merge(line, 1, Integer::sum);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the step log " + log, e);
        }
        return runs;
    }
}
