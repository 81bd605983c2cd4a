package io.cognitionstreams.governance;

import java.util.Optional;

import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.serde.Utf8;
import io.cognitionstreams.skills.ToolNames;

/**
 * What a tool descriptor on cognition.tools must be to reach the tools index of every packet whose skill may call
 * it: keyed by the name calls use, a well-formed {@code mcp__server__tool} name of that server and tool, and small
 * (every instance holds every descriptor, and each may go into a system prompt). Depends on the descriptor alone,
 * so the assembly's mirror that skips one and the guard that dead-letters it agree.
 */
public final class ToolDescriptors {

    static final int MAX_DESCRIPTION_BYTES = 4 * 1024;
    static final int MAX_SCHEMA_BYTES = 16 * 1024;

    private ToolDescriptors() {
    }

    public static Optional<String> refuse(String key, ToolDescriptor tool) {
        if (!tool.getName().equals(key)) {
            return Optional.of("tool " + tool.getName() + " is keyed " + key + "; cognition.tools is keyed by name");
        }
        boolean named = ToolNames.split(tool.getName())
                .filter(name -> tool.getName().startsWith("mcp__") && name.service().equals(tool.getServer())
                        && name.method().equals(tool.getTool()))
                .isPresent();
        if (!named) {
            return Optional.of("tool name " + tool.getName() + " is not mcp__" + tool.getServer() + "__"
                    + tool.getTool() + " (its server and tool)");
        }
        if (Utf8.length(tool.getDescription()) > MAX_DESCRIPTION_BYTES) {
            return Optional.of("the description of " + tool.getName() + " is over " + MAX_DESCRIPTION_BYTES
                    + " bytes");
        }
        if (tool.getInputSchema() != null && Utf8.length(tool.getInputSchema()) > MAX_SCHEMA_BYTES) {
            return Optional.of("the input schema of " + tool.getName() + " is over " + MAX_SCHEMA_BYTES + " bytes");
        }
        return Optional.empty();
    }
}
