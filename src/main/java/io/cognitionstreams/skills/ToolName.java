package io.cognitionstreams.skills;

import java.util.Objects;

/**
 * A well-formed tool name cut into its parts, the same whichever spelling it came in: {@code git.status},
 * {@code git:status} and {@code mcp__git__status} are all {@code ToolName("git", "status")}. Made by
 * {@link ToolNames#split}. For an executor, {@code service} is the MCP server and {@code method} the tool on it.
 *
 * @param service a non-empty run of ASCII letters, digits, {@code _} and {@code -}, not starting with
 *                {@value ToolNames#MCP_PREFIX}
 * @param method  one or more such runs joined by dots ({@code remote.add})
 */
public record ToolName(String service, String method) {

    /** @throws IllegalArgumentException if the parts do not make a well-formed tool name */
    public ToolName {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(method, "method");
        if (!ToolNames.isService(service) || !ToolNames.isMethod(method, 0)) {
            throw new IllegalArgumentException("not a tool name: service \"" + service + "\", method \"" + method
                    + "\"");
        }
    }

    /** {@code service:method}, the spelling of permissions and messages; {@link ToolNames#split} reads it back. */
    public String canonical() {
        return service + ':' + method;
    }
}
