package io.cognitionstreams.executor;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.cognitionstreams.schema.ToolDescriptor;

/** What an executor offers, as the cognition.tools records the assembly's tools index reads. */
public final class ToolCatalog {

    private ToolCatalog() {
    }

    /** One descriptor per offered tool, keyed by the name calls use. */
    public static Map<String, ToolDescriptor> descriptors(List<McpServers.OfferedTool> offered, String executor,
                                                          Instant now) {
        Map<String, ToolDescriptor> descriptors = new LinkedHashMap<>();
        for (McpServers.OfferedTool tool : offered) {
            descriptors.put(tool.name(), ToolDescriptor.newBuilder()
                    .setName(tool.name())
                    .setServer(tool.server())
                    .setTool(tool.tool())
                    .setDescription(tool.description())
                    .setInputSchema(tool.inputSchema())
                    .setReadOnly(tool.readOnly())
                    .setIdempotent(tool.idempotent())
                    .setDestructive(tool.destructive())
                    .setExecutor(executor)
                    .setTimestamp(now)
                    .build());
        }
        return descriptors;
    }

    /** The shell runner's one tool, when the operator turned it on. */
    public static ToolDescriptor shell(String executor, Instant now) {
        return ToolDescriptor.newBuilder()
                .setName(ToolTarget.SHELL_SERVICE + "." + ToolTarget.SHELL_METHOD)
                .setServer(ToolTarget.SHELL_SERVICE)
                .setTool(ToolTarget.SHELL_METHOD)
                .setDescription("Runs one command with /bin/sh in the session's own working directory and returns "
                        + "its exit status, stdout and stderr. Write it as a line: EXECUTE: <command>")
                .setInputSchema("{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},"
                        + "\"required\":[\"command\"]}")
                .setReadOnly(false)
                .setIdempotent(false)
                .setDestructive(true)
                .setExecutor(executor)
                .setTimestamp(now)
                .build();
    }
}
