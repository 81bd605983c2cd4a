package io.cognitionstreams.executor.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.executor.McpServerConfig;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The MCP server shipped for `run --demo`: a read-only view of one directory (list files, read a text file) and a
 * clock, served over stdio with the MCP Java SDK. Every tool says it is read-only, so the executor may retry it.
 * Paths are resolved inside the root and followed through symbolic links before the check, so no path (with
 * {@code ..} or a link) reads anything outside it.
 */
public final class WorkspaceServer {

    public static final String NAME = "workspace";
    /** The most entries one listing returns and the most bytes one read returns. */
    static final int MAX_ENTRIES = 200;
    static final int MAX_READ_BYTES = 16 * 1024;

    private final Path root;

    public WorkspaceServer(Path root) throws IOException {
        this.root = root.toRealPath();
    }

    /** How the executor starts this server: this JVM's java and class path, the CLI's `mcp-server` command. */
    public static McpServerConfig demoConfig(Path root) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new McpServerConfig(NAME, List.of(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), "io.cognitionstreams.cli.CognitionCli", "mcp-server",
                NAME, "--root", root.toAbsolutePath().toString()), Map.of(), Optional.empty());
    }

    /** Serves on stdin/stdout until the client closes them or the process that started this one is gone. */
    public void serve() throws InterruptedException {
        JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
        McpSyncServer server = McpServer.sync(new SerialStdio(json))
                .serverInfo("cognition-streams-workspace", "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .toolCall(tool("list_files", "List the files and directories under a directory of the workspace "
                        + "(path relative to its root; default: the root).", Map.of("path", "string")),
                        (exchange, request) -> answer(() -> listFiles(text(request.arguments(), "path", "."))))
                .toolCall(tool("read_file", "Read a UTF-8 text file of the workspace (path relative to its root; "
                        + "the first " + MAX_READ_BYTES + " bytes).", Map.of("path", "string")),
                        (exchange, request) -> answer(() -> readFile(text(request.arguments(), "path", ""))))
                .toolCall(tool("clock", "The current date and time (UTC, ISO-8601).", Map.of()),
                        (exchange, request) -> answer(() -> Instant.now().toString()))
                .build();
        // Orphaned when its parent dies (SIGKILL): stop rather than linger.
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        while (ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L) == parent) {
            Thread.sleep(500);
        }
        server.closeGracefully();
    }

    String listFiles(String path) throws IOException {
        Path directory = inside(path);
        if (!Files.isDirectory(directory)) {
            throw new IllegalArgumentException(path + " is not a directory");
        }
        List<String> lines = new ArrayList<>();
        try (Stream<Path> entries = Files.list(directory)) {
            List<Path> sorted = entries.sorted().toList();
            for (Path entry : sorted.subList(0, Math.min(MAX_ENTRIES, sorted.size()))) {
                String name = root.relativize(entry).toString();
                lines.add(Files.isDirectory(entry) ? name + "/" : name + " (" + Files.size(entry) + " bytes)");
            }
            if (sorted.size() > MAX_ENTRIES) {
                lines.add("... and " + (sorted.size() - MAX_ENTRIES) + " more");
            }
        }
        return lines.isEmpty() ? "(empty)" : String.join("\n", lines);
    }

    String readFile(String path) throws IOException {
        Path file = inside(path);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(path + " is not a file");
        }
        byte[] head;
        try (var in = Files.newInputStream(file)) {
            head = in.readNBytes(MAX_READ_BYTES);
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(head)).toString();
            long size = Files.size(file);
            return size > head.length ? text + "\n[... " + (size - head.length) + " more bytes]" : text;
        } catch (CharacterCodingException e) {
            // Also where a cut splits a character: rare, and better refused than garbled.
            throw new IllegalArgumentException(path + " is not UTF-8 text");
        }
    }

    /** The real path of {@code path} under the root; anything that leads outside it is refused. */
    private Path inside(String path) throws IOException {
        Path resolved = root.resolve(path).normalize();
        Path real;
        try {
            real = resolved.toRealPath();
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(path + " does not exist");
        }
        if (!real.startsWith(root)) {
            throw new IllegalArgumentException(path + " is outside the workspace");
        }
        return real;
    }

    private static McpSchema.Tool tool(String name, String description, Map<String, String> properties) {
        return tool(name, description, properties, true, true);
    }

    /**
     * A tool whose arguments are flat properties of JSON types ({@code "string"}, {@code "integer"}), with the hints
     * the executor reads to decide whether a call may run again after a crash.
     */
    public static McpSchema.Tool tool(String name, String description, Map<String, String> properties,
                                      boolean readOnly, boolean idempotent) {
        Map<String, Object> schemaProperties = new LinkedHashMap<>();
        properties.forEach((property, type) -> schemaProperties.put(property, Map.of("type", type)));
        return McpSchema.Tool.builder()
                .name(name)
                .description(description)
                .inputSchema(Map.of("type", "object", "properties", schemaProperties))
                .annotations(new McpSchema.ToolAnnotations(name, readOnly, false, idempotent, false, null))
                .build();
    }

    private static String text(Map<String, Object> arguments, String name, String fallback) {
        Object value = arguments == null ? null : arguments.get(name);
        return value == null ? fallback : value.toString();
    }

    /** A tool's answer; a refusal (bad path, not a file) is a tool error the model can read, not a crash. */
    private static McpSchema.CallToolResult answer(Work work) {
        try {
            return McpSchema.CallToolResult.builder().addTextContent(work.run()).isError(false).build();
        } catch (IllegalArgumentException | IOException e) {
            return McpSchema.CallToolResult.builder().addTextContent(e.getMessage()).isError(true).build();
        }
    }

    @FunctionalInterface
    private interface Work {
        String run() throws IOException;
    }
}
