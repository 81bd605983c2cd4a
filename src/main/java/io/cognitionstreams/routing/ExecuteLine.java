package io.cognitionstreams.routing;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * What an EXECUTE block asks for. A block that starts with an MCP tool name, {@code mcp__server__tool}, optionally
 * followed by its JSON arguments, calls that tool: {@code EXECUTE: mcp__workspace__list_files {"path": "docs"}}.
 * Anything else is a shell command for {@link OutputRouter#SHELL_TOOL}. Only the {@code mcp__} spelling makes a
 * block a tool call: {@code git.status} could be the start of a command, and a command never starts with
 * {@code mcp__}. The arguments are passed on as written; the executor refuses ones that are not a JSON object, and
 * the model reads why in the result.
 */
record ExecuteLine(String tool, String arguments) {

    /** The name, then everything else as its arguments: a block that starts with {@code mcp__} is never a command. */
    private static final Pattern MCP_CALL = Pattern.compile("(mcp__[A-Za-z0-9_.-]+)(.*)", Pattern.DOTALL);

    static ExecuteLine parse(String block) {
        String text = block.strip();
        Matcher call = MCP_CALL.matcher(text);
        if (call.matches()) {
            String arguments = call.group(2).strip();
            return new ExecuteLine(call.group(1), arguments.isEmpty() ? "{}" : arguments);
        }
        return new ExecuteLine(OutputRouter.SHELL_TOOL,
                JsonNodeFactory.instance.objectNode().put("command", block).toString());
    }
}
