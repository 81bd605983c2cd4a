package io.cognitionstreams.executor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.executor.demo.SerialStdio;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * An MCP stdio server for the executor's integration tests, built with the SDK's server API as
 * {@link io.cognitionstreams.executor.demo.WorkspaceServer} is, with side effects a test can count:
 * <ul>
 *   <li>{@code touch {file, line, sleep_first_ms}}: appends {@code line} to {@code file}, then, if the file was empty
 *       before, sleeps {@code sleep_first_ms} (so a first run can be caught mid-call and a re-run returns at
 *       once). Neither read-only nor idempotent.</li>
 *   <li>{@code touch_idempotent}: the same, hinted idempotent, so the executor may run it again after a crash.</li>
 *   <li>{@code sleep {ms}}: sleeps, then answers.</li>
 *   <li>{@code crash {}}: the process exits mid-call.</li>
 *   <li>{@code garbage {}}: writes a line that is no JSON-RPC to stdout, then answers. Not used by
 *       {@link ExecutorIT}: the SDK's client stops reading a server after such a line, so the call waits for the
 *       call timeout (TIMED_OUT), after which the executor starts the server again.</li>
 * </ul>
 */
public final class TestMcpServer {

    private TestMcpServer() {
    }

    /** How the executor starts it: this JVM's java and class path. */
    public static McpServerConfig config(String name) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new McpServerConfig(name, List.of(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp",
                System.getProperty("java.class.path"), TestMcpServer.class.getName()), Map.of(), Optional.empty());
    }

    public static void main(String[] args) throws Exception {
        JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
        McpSyncServer server = McpServer.sync(new SerialStdio(json))
                .serverInfo("cognition-streams-test", "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .toolCall(tool("touch", "Append a line to a file; sleep after the first.",
                        Map.of("file", "string", "line", "string", "sleep_first_ms", "integer"), false),
                        (exchange, request) -> answer(() -> touch(request.arguments())))
                .toolCall(tool("touch_idempotent", "touch, hinted idempotent.", Map.of("file", "string", "line",
                        "string", "sleep_first_ms", "integer"), true),
                        (exchange, request) -> answer(() -> touch(request.arguments())))
                .toolCall(tool("sleep", "Sleep ms milliseconds.", Map.of("ms", "integer"), false),
                        (exchange, request) -> answer(() -> {
                            long ms = number(request.arguments(), "ms");
                            Thread.sleep(ms);
                            return "slept " + ms + " ms";
                        }))
                .toolCall(tool("crash", "Exit the server process mid-call.", Map.of(), false),
                        (exchange, request) -> {
                            Runtime.getRuntime().halt(3);
                            return null;
                        })
                .toolCall(tool("garbage", "Write a non-JSON line to stdout, then answer.", Map.of(), false),
                        (exchange, request) -> {
                            System.out.println("}}} this is not JSON-RPC {{{");
                            System.out.flush();
                            return answer(() -> "garbage written");
                        })
                .build();
        // Orphaned when the executor's JVM is killed: stop rather than linger (and never touch anything again).
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        while (ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L) == parent) {
            Thread.sleep(200);
        }
        server.closeGracefully();
        Runtime.getRuntime().halt(0);
    }

    private static String touch(Map<String, Object> arguments) throws Exception {
        Path file = Path.of(String.valueOf(arguments.get("file")));
        String line = String.valueOf(arguments.get("line"));
        boolean first = !Files.exists(file) || Files.size(file) == 0;
        Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        long sleep = arguments.containsKey("sleep_first_ms") ? number(arguments, "sleep_first_ms") : 0;
        if (first && sleep > 0) {
            Thread.sleep(sleep);
        }
        return "touched " + file.getFileName() + ": " + line;
    }

    private static long number(Map<String, Object> arguments, String name) {
        Object value = arguments == null ? null : arguments.get(name);
        if (!(value instanceof Number number)) {
            throw new IllegalArgumentException(name + " must be a number, was " + value);
        }
        return number.longValue();
    }

    private static McpSchema.Tool tool(String name, String description, Map<String, String> properties,
                                       boolean idempotent) {
        // Never read-only; idempotent only where asked: otherwise only a skill's retry_safe lets the executor run
        // it twice.
        return WorkspaceServer.tool(name, description, properties, false, idempotent);
    }

    private static McpSchema.CallToolResult answer(Work work) {
        try {
            return McpSchema.CallToolResult.builder().addTextContent(work.run()).isError(false).build();
        } catch (Exception e) {
            return McpSchema.CallToolResult.builder().addTextContent(String.valueOf(e.getMessage())).isError(true)
                    .build();
        }
    }

    @FunctionalInterface
    private interface Work {
        String run() throws Exception;
    }
}
