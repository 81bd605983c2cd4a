package io.cognitionstreams.executor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * The operator's MCP servers, each reached through the official MCP Java SDK: started (stdio) or connected (HTTP),
 * initialized, and asked what tools it offers ({@code tools/list}). A server that fails, hangs or crashes costs
 * the calls made to it, never the executor: its connection is dropped and made again on its next call, at most
 * once per {@link #RETRY_AFTER}, and every failure is an {@link Outcome} the caller turns into a result.
 * Thread-safe: calls of different sessions run in parallel, over one connection per server.
 */
public final class McpServers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(McpServers.class);
    /** A server that would not start is not tried again for this long: its calls fail at once meanwhile. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    /** A tool a server offers, as its {@code tools/list} describes it. */
    public record OfferedTool(String server, String tool, String description, String inputSchema, boolean readOnly,
                              boolean idempotent, boolean destructive) {

        /** The name calls use: {@code mcp__server__tool}. */
        public String name() {
            return "mcp__" + server + "__" + tool;
        }

        /** Safe to run again after a crash, by the server's own hints. */
        public boolean retrySafe() {
            return readOnly || idempotent;
        }
    }

    private final Map<String, Server> servers = new LinkedHashMap<>();
    private final Duration callTimeout;
    private final int maxResultBytes;
    // Keys sorted: Jackson orders a record's properties as reflection lists them, which differs between JVM runs, and
    // a tool's schema written differently at each start would be a changed descriptor to publish again.
    private final ObjectMapper json = JsonMapper.builder().enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();
    private final McpJsonMapper mapper = new JacksonMcpJsonMapper(json);

    /**
     * @param callTimeout    the longest one call may take (and a server's start); past it the call is TIMED_OUT
     * @param maxResultBytes the most of a result's text kept (head and tail, {@link TextCap})
     */
    public McpServers(List<McpServerConfig> configs, Duration callTimeout, int maxResultBytes) {
        for (McpServerConfig config : configs) {
            if (servers.put(config.name(), new Server(config)) != null) {
                throw new IllegalArgumentException("two MCP servers are named " + config.name());
            }
        }
        this.callTimeout = callTimeout;
        this.maxResultBytes = maxResultBytes;
    }

    public boolean serves(String server) {
        return servers.containsKey(server);
    }

    public List<String> names() {
        return List.copyOf(servers.keySet());
    }

    /** Connects to every server and lists its tools; a server that fails is logged, left out and tried later. */
    public List<OfferedTool> start() {
        List<OfferedTool> offered = new ArrayList<>();
        for (Server server : servers.values()) {
            try {
                offered.addAll(server.connection().tools.values());
            } catch (RuntimeException e) {
                LOG.warn("MCP server {} ({}) is not available: {}; its calls fail until it is", server.config.name(),
                        server.config.describe(), e.getMessage());
            }
        }
        return offered;
    }

    /** The tool as its server offers it; empty if the server is down or does not offer it. */
    public Optional<OfferedTool> offered(String server, String tool) {
        Server target = servers.get(server);
        if (target == null) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(target.connection().tools.get(tool));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Calls {@code tool} on {@code server} with {@code arguments} (a JSON object's fields). */
    public Outcome call(String server, String tool, Map<String, Object> arguments) {
        Server target = servers.get(server);
        if (target == null) {
            return Outcome.notRun("no MCP server is named " + server + " (configured: " + String.join(", ",
                    servers.keySet()) + ")");
        }
        Connection connection;
        try {
            connection = target.connection();
        } catch (RuntimeException e) {
            return Outcome.notRun("not run: MCP server " + server + " is not available: " + e.getMessage());
        }
        if (!connection.tools.containsKey(tool)) {
            return Outcome.notRun("not run: MCP server " + server + " offers no tool " + tool + " (it offers: "
                    + String.join(", ", connection.tools.keySet()) + ")");
        }
        long start = System.nanoTime();
        try {
            McpSchema.CallToolResult result = connection.client.callTool(
                    new McpSchema.CallToolRequest(tool, arguments));
            return outcome(result, millisSince(start));
        } catch (McpError e) {
            // The server answered with a JSON-RPC error: it is up, the call was wrong (unknown tool, bad params).
            return Outcome.failed("MCP server " + server + " refused the call: " + e.getMessage(), null,
                    millisSince(start));
        } catch (RuntimeException e) {
            target.drop(connection);
            if (causedBy(e, TimeoutException.class)) {
                return Outcome.timedOut("MCP server " + server + " did not answer " + tool + " within "
                        + callTimeout.toSeconds() + " s; the tool may still have run", null, millisSince(start));
            }
            return Outcome.unknown("MCP server " + server + " failed during the call (" + rootMessage(e)
                    + "); the tool may or may not have run", millisSince(start));
        }
    }

    private Outcome outcome(McpSchema.CallToolResult result, long durationMs) {
        StringBuilder text = new StringBuilder();
        for (McpSchema.Content content : result.content() == null ? List.<McpSchema.Content>of() : result.content()) {
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append(content instanceof McpSchema.TextContent plain ? plain.text() : "[" + content.type()
                    + " content]");
        }
        String capped = TextCap.cap(text.toString(), maxResultBytes);
        if (Boolean.TRUE.equals(result.isError())) {
            return Outcome.failed("the tool reported an error", capped, durationMs);
        }
        String structured = null;
        if (result.structuredContent() != null) {
            try {
                String encoded = json.writeValueAsString(result.structuredContent());
                // Kept only whole: a cut JSON object is no JSON object. Over the cap, the text still carries it.
                structured = encoded.length() <= maxResultBytes ? encoded : null;
            } catch (JsonProcessingException e) {
                structured = null;
            }
        }
        return Outcome.succeeded(capped, structured, durationMs);
    }

    @Override
    public void close() {
        servers.values().forEach(Server::close);
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }

    /** An initialized client and the tools its server listed when it was made. */
    private record Connection(McpSyncClient client, Map<String, OfferedTool> tools) {
    }

    /** One configured server: its current connection, made on demand and dropped when it fails. */
    private final class Server {
        private final McpServerConfig config;
        private Connection connection;
        private long failedAt;
        private String failure;

        Server(McpServerConfig config) {
            this.config = config;
        }

        synchronized Connection connection() {
            if (connection != null) {
                return connection;
            }
            if (failure != null && System.nanoTime() - failedAt < RETRY_AFTER.toNanos()) {
                throw new IllegalStateException(failure);
            }
            McpClientTransport transport = transport();
            McpSyncClient client = McpClient.sync(transport)
                    .requestTimeout(callTimeout)
                    .initializationTimeout(callTimeout)
                    .clientInfo(new McpSchema.Implementation("cognition-streams-executor", "1"))
                    .build();
            try {
                client.initialize();
                Map<String, OfferedTool> tools = new LinkedHashMap<>();
                String cursor = null;
                do {
                    McpSchema.ListToolsResult page = client.listTools(cursor);
                    for (McpSchema.Tool tool : page.tools()) {
                        tools.put(tool.name(), describe(tool));
                    }
                    cursor = page.nextCursor();
                } while (cursor != null);
                connection = new Connection(client, Map.copyOf(tools));
                if (transport instanceof StdioClientTransport stdio) {
                    watchExit(stdio, connection);
                }
                failure = null;
                LOG.info("MCP server {} ({}) offers {} tools: {}", config.name(), config.describe(), tools.size(),
                        String.join(", ", tools.keySet()));
                return connection;
            } catch (RuntimeException e) {
                closeQuietly(client);
                failedAt = System.nanoTime();
                failure = "MCP server " + config.name() + " (" + config.describe() + ") did not start: "
                        + rootMessage(e);
                throw new IllegalStateException(failure, e);
            }
        }

        private OfferedTool describe(McpSchema.Tool tool) {
            McpSchema.ToolAnnotations hints = tool.annotations();
            String schema;
            try {
                schema = tool.inputSchema() == null ? null : json.writeValueAsString(tool.inputSchema());
            } catch (JsonProcessingException e) {
                schema = null;
            }
            return new OfferedTool(config.name(), tool.name(), tool.description() == null ? "" : tool.description(),
                    schema, hints != null && Boolean.TRUE.equals(hints.readOnlyHint()),
                    hints != null && Boolean.TRUE.equals(hints.idempotentHint()),
                    hints != null && Boolean.TRUE.equals(hints.destructiveHint()));
        }

        private McpClientTransport transport() {
            if (!config.stdio()) {
                return HttpClientStreamableHttpTransport.builder(config.url().get().toString()).build();
            }
            ServerParameters parameters = ServerParameters.builder(config.command().get(0))
                    .args(config.command().subList(1, config.command().size()))
                    .env(config.env())
                    .build();
            StdioClientTransport transport = new CleanEnvironmentTransport(parameters, mapper);
            transport.setStdErrorHandler(line -> LOG.info("[mcp {}] {}", config.name(), line));
            return transport;
        }

        /**
         * The SDK does not fail a call whose stdio server died: it would wait for the call timeout and be reported
         * TIMED_OUT, holding up the executor's other sessions meanwhile. When the process exits, this closes the
         * client, which fails the calls in flight at once (UNKNOWN_OUTCOME: the tool may have run), and drops the
         * connection, so the next call starts the server again.
         */
        private void watchExit(StdioClientTransport stdio, Connection watched) {
            Thread watcher = new Thread(() -> {
                try {
                    stdio.awaitForExit();
                } catch (RuntimeException e) {
                    return; // interrupted: nothing to watch
                }
                synchronized (this) {
                    if (connection != watched) {
                        return; // dropped or closed on purpose
                    }
                    connection = null;
                }
                LOG.warn("MCP server {} exited; its calls in flight fail, its next call starts it again",
                        config.name());
                try {
                    watched.client.close();
                } catch (RuntimeException e) {
                    LOG.debug("closing MCP server {}: {}", config.name(), e.toString());
                }
            }, "mcp-" + config.name() + "-exit");
            watcher.setDaemon(true);
            watcher.start();
        }

        synchronized void drop(Connection failed) {
            if (connection == failed) {
                connection = null;
                closeQuietly(failed.client);
            }
        }

        synchronized void close() {
            if (connection != null) {
                closeQuietly(connection.client);
                connection = null;
            }
        }

        private void closeQuietly(McpSyncClient client) {
            try {
                client.closeGracefully();
            } catch (RuntimeException e) {
                LOG.debug("closing MCP server {}: {}", config.name(), e.toString());
            }
        }
    }

    /**
     * The SDK starts a stdio server with the whole environment of this process, which holds the model's API key
     * and the cluster's credentials. This transport starts it with only the SDK's short list (HOME, LOGNAME, PATH,
     * SHELL, TERM, USER) and what the operator configured for that server.
     */
    private static final class CleanEnvironmentTransport extends StdioClientTransport {
        CleanEnvironmentTransport(ServerParameters parameters, McpJsonMapper mapper) {
            super(parameters, mapper);
        }

        @Override
        protected ProcessBuilder getProcessBuilder() {
            ProcessBuilder builder = new ProcessBuilder();
            builder.environment().clear();
            return builder;
        }

        /**
         * One send at a time, as the servers' {@code demo/SerialStdio}: the SDK's outbound sink takes one sender and
         * gives up after 100 ms of waiting for another ("Failed to enqueue message"), which fails the call, and the
         * connection with every call in flight on it (unknown outcomes), when a sender is descheduled that long.
         */
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.defer(() -> {
                synchronized (this) {
                    return Mono.fromFuture(super.sendMessage(message).toFuture());
                }
            });
        }
    }
}
