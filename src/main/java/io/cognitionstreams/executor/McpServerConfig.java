package io.cognitionstreams.executor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.skills.ToolNames;

/**
 * One MCP server an operator configured: a command the executor starts and talks to over stdio, or the URL of a
 * streamable-HTTP server. Its name is the service part of the tools it offers ({@code mcp__NAME__tool},
 * {@code NAME.tool}), so it follows the tool-name rules and has no {@code __}, which would make
 * {@code mcp__a__b__c} ambiguous.
 *
 * @param command the program and its arguments (stdio); empty for an HTTP server
 * @param env     extra environment for the program; it inherits nothing else but PATH, so no secret of the app's
 *                leaks into a server by accident
 * @param url     the streamable-HTTP endpoint; empty for a stdio server
 */
public record McpServerConfig(String name, List<String> command, Map<String, String> env, Optional<URI> url) {

    public McpServerConfig {
        requireValidName(name);
        if (name.equals(ToolTarget.SHELL_SERVICE)) {
            // ToolTarget sends shell.run, shell:run and mcp__shell__run to the shell runner, anything else of
            // "shell" elsewhere: no call would ever reach this server.
            throw new IllegalArgumentException("invalid MCP server name \"" + name + "\": it is the shell runner's "
                    + "(shell.run); its tools would never reach this server, so give it another name");
        }
        command = List.copyOf(command);
        env = Map.copyOf(env);
        Objects.requireNonNull(url, "url");
        if (command.isEmpty() == url.isEmpty()) {
            throw new IllegalArgumentException("MCP server " + name + " needs either a command or a url");
        }
        url.ifPresent(address -> {
            if (!"http".equals(address.getScheme()) && !"https".equals(address.getScheme())) {
                throw new IllegalArgumentException("MCP server " + name + ": the url must be http or https, was "
                        + address);
            }
        });
    }

    public boolean stdio() {
        return url.isEmpty();
    }

    /** What the start log and `--help` show: the command line or the URL. */
    public String describe() {
        return stdio() ? String.join(" ", command) : url.get().toString();
    }

    /**
     * {@code NAME=COMMAND ARG...} (split on whitespace; use a config file for arguments with spaces) or
     * {@code NAME=http(s)://...}: the form of {@code --mcp-server}.
     */
    public static McpServerConfig parse(String spec) {
        int equals = spec.indexOf('=');
        if (equals <= 0 || spec.substring(equals + 1).isBlank()) {
            throw new IllegalArgumentException("--mcp-server takes NAME=COMMAND [ARG...] or NAME=URL, got \"" + spec
                    + "\"");
        }
        String name = spec.substring(0, equals).strip();
        String target = spec.substring(equals + 1).strip();
        if (target.startsWith("http://") || target.startsWith("https://")) {
            return new McpServerConfig(name, List.of(), Map.of(), Optional.of(uri(name, target)));
        }
        return new McpServerConfig(name, List.of(target.split("\\s+")), Map.of(), Optional.empty());
    }

    /**
     * The servers of a config file in the {@code mcpServers} format MCP clients share (Claude Desktop, Cursor,
     * Claude Code's .mcp.json): {@code {"mcpServers": {"NAME": {"command": ..., "args": [...], "env": {...}}}}}, or
     * {@code {"url": ...}} for an HTTP server.
     */
    public static List<McpServerConfig> readFile(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MCP config " + file + ": " + e.getMessage(), e);
        }
        JsonNode servers = root == null ? null : root.get("mcpServers");
        if (servers == null || !servers.isObject()) {
            throw new IllegalArgumentException(file + ": no \"mcpServers\" object");
        }
        List<McpServerConfig> configs = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = servers.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            configs.add(fromJson(file, entry.getKey(), entry.getValue()));
        }
        return configs;
    }

    private static McpServerConfig fromJson(Path file, String name, JsonNode server) {
        String where = file + ": server " + name;
        if (server.hasNonNull("url")) {
            return new McpServerConfig(name, List.of(), Map.of(), Optional.of(uri(name, text(server, "url", where))));
        }
        List<String> command = new ArrayList<>();
        command.add(text(server, "command", where));
        JsonNode args = server.path("args");
        if (!args.isMissingNode() && !args.isArray()) {
            throw new IllegalArgumentException(where + ": \"args\" must be an array of strings");
        }
        for (JsonNode arg : args) {
            if (!arg.isTextual()) {
                // asText() would make an object "" and a null "null": arguments nobody wrote
                throw new IllegalArgumentException(where + ": \"args\" must be an array of strings, has " + arg);
            }
            command.add(arg.textValue());
        }
        JsonNode variables = server.path("env");
        if (!variables.isMissingNode() && !variables.isObject()) {
            throw new IllegalArgumentException(where + ": \"env\" must be an object of strings");
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = variables.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> variable = it.next();
            if (!variable.getValue().isTextual()) {
                // the value is not shown: it may be a secret
                throw new IllegalArgumentException(where + ": \"env\" must be an object of strings; "
                        + variable.getKey() + " is not a string");
            }
            env.put(variable.getKey(), variable.getValue().textValue());
        }
        return new McpServerConfig(name, command, env, Optional.empty());
    }

    private static URI uri(String name, String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("MCP server " + name + ": \"" + url + "\" is not a url ("
                    + e.getReason() + ")", e);
        }
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.textValue().isBlank()) {
            throw new IllegalArgumentException(where + ": \"" + field + "\" must be a non-empty string");
        }
        return value.textValue();
    }

    private static void requireValidName(String name) {
        if (name == null || name.isEmpty() || name.contains("__") || name.startsWith("_") || name.endsWith("_")) {
            throw new IllegalArgumentException("invalid MCP server name \"" + name + "\": use letters, digits, "
                    + "single _ and -, not starting or ending with _ (it becomes mcp__" + name + "__TOOL)");
        }
        for (int i = 0; i < name.length(); i++) {
            if (!ToolNames.isNameChar(name.charAt(i))) {
                throw new IllegalArgumentException("invalid MCP server name \"" + name + "\": '" + name.charAt(i)
                        + "' is not allowed; use letters, digits, _ and -");
            }
        }
    }
}
