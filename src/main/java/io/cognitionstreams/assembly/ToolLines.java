package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDescriptor;

/**
 * The executors' tools as the tools index shows them: {@code - NAME(arg: type, opt?: type): description}, only
 * those the active skill's permissions allow, by name. Descriptions come from the MCP servers, which the operator
 * chose; they reach the model's system prompt as the servers wrote them, cut to one line.
 */
final class ToolLines {

    /** How the model calls a tool: the EXECUTE grammar marker routing understands. */
    static final String HOW_TO_CALL = "Call a tool with a line EXECUTE: <tool> {JSON arguments}, e.g. "
            + "EXECUTE: mcp__server__tool {\"path\": \".\"}; its result arrives as the next tool message.";
    private static final int MAX_DESCRIPTION = 200;
    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolLines() {
    }

    /** How the model calls a tool natively: the API's own tool calls, which the worker writes as EXECUTE lines. */
    static final String HOW_TO_CALL_NATIVE = "Call the tools you are given with the API's tool calls; each result "
            + "arrives as the tool message that answers its call.";

    /** The tools-index lines of the tools the active skill may call, sorted. */
    static List<String> callable(Optional<Skill> skill, RenderedTools tools) {
        List<String> lines = new ArrayList<>();
        for (RenderedTools.Entry entry : tools.permitted(skill)) {
            lines.add(entry.line());
        }
        lines.sort(null);
        return lines;
    }

    /** A tool's line: {@code - NAME(arguments): description}, on one line whatever its server wrote. */
    static String line(ToolDescriptor tool) {
        // the schema is the server's too: none of it may open a line of its own in the prompt
        return ("- " + tool.getName() + "(" + arguments(tool.getInputSchema()) + "): ").replaceAll("\\s+", " ")
                + oneLine(tool.getDescription());
    }

    /** {@code name: type} per property of the input schema, {@code ?} after the optional ones. */
    static String arguments(String inputSchema) {
        if (inputSchema == null) {
            return "";
        }
        JsonNode schema;
        try {
            schema = JSON.readTree(inputSchema);
        } catch (JsonProcessingException e) {
            return "";
        }
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(name -> required.add(name.asText()));
        List<String> arguments = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            String type = type(property.getValue().path("type"));
            arguments.add(property.getKey() + (required.contains(property.getKey()) ? "" : "?") + ": " + type);
        }
        return String.join(", ", arguments);
    }

    /** {@code "string"}, or {@code string|null} for a list of types; {@code any} if it says none. */
    private static String type(JsonNode type) {
        if (type.isTextual()) {
            return type.textValue();
        }
        List<String> types = new ArrayList<>();
        if (type.isArray()) {
            for (JsonNode alternative : type) {
                if (alternative.isTextual()) {
                    types.add(alternative.textValue());
                }
            }
        }
        return types.isEmpty() ? "any" : String.join("|", types);
    }

    private static String oneLine(String description) {
        String line = description.strip().replaceAll("\\s+", " ");
        return line.length() <= MAX_DESCRIPTION ? line : line.substring(0, MAX_DESCRIPTION - 3) + "...";
    }
}
