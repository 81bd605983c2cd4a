package io.cognitionstreams.executor;

import java.util.Optional;
import java.util.function.Predicate;

import io.cognitionstreams.skills.ToolName;
import io.cognitionstreams.skills.ToolNames;

/**
 * Where an approved call runs, from its tool name alone ({@link ToolNames#split}, so all three spellings agree):
 * <ul>
 *   <li>{@code shell:run} (also {@code shell.run}, {@code mcp__shell__run}): the shell runner, when the operator
 *       turned it on.</li>
 *   <li>{@code mcp__server__tool}: that MCP server. The {@code mcp__} spelling says the tool is MCP's, so a server
 *       nobody configured is an error the call is answered with.</li>
 *   <li>{@code server.tool} or {@code server:tool} where a configured MCP server has that name: that server (the
 *       seeds' {@code git.status} is the {@code status} tool of an MCP server named {@code git}).</li>
 * </ul>
 * A name that starts with {@code mcp__} but is not well-formed is {@link Unserved} too: no server can offer it.
 * Anything else is {@link Elsewhere}: left to another executor (an agent's own, or a person reading channel.shell),
 * never answered here, since two answers to one call would be worse than none.
 */
public sealed interface ToolTarget permits ToolTarget.Mcp, ToolTarget.Shell, ToolTarget.Unserved,
        ToolTarget.Elsewhere {

    /** The service of the shell runner's tool. */
    String SHELL_SERVICE = "shell";
    String SHELL_METHOD = "run";

    record Mcp(String server, String tool) implements ToolTarget {
    }

    record Shell() implements ToolTarget {
    }

    /** Addressed to this executor's namespace but not served by it: answered with this error. */
    record Unserved(String error) implements ToolTarget {
    }

    record Elsewhere() implements ToolTarget {
    }

    /**
     * @param servers which MCP server names are configured
     * @param shell   whether the shell runner is on
     */
    static ToolTarget of(String tool, Predicate<String> servers, boolean shell) {
        Optional<ToolName> split = ToolNames.split(tool);
        if (split.isEmpty()) {
            // No MCP server offers a name that does not split, and mcp__ claims it for MCP: answer, or nobody will.
            return tool != null && tool.startsWith("mcp__")
                    ? new Unserved("\"" + tool + "\" is not a tool name: " + ToolNames.problem(tool))
                    : new Elsewhere();
        }
        ToolName name = split.get();
        if (name.service().equals(SHELL_SERVICE)) {
            return !name.method().equals(SHELL_METHOD) ? new Elsewhere() : shell ? new Shell() : new Elsewhere();
        }
        if (servers.test(name.service())) {
            return new Mcp(name.service(), name.method());
        }
        if (tool.startsWith("mcp__")) {
            return new Unserved("no MCP server named " + name.service() + " is configured on this executor");
        }
        return new Elsewhere();
    }
}
