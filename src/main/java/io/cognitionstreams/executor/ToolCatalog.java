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
                    .setExecutor(executor)
                    .setTimestamp(now)
                    .build());
        }
        return descriptors;
    }
}
