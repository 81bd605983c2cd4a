package io.cognitionstreams.model;

import java.util.LinkedHashSet;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.cognitionstreams.prompt.ModelClient.ModelCall;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.prompt.ModelClient.ToolSpec;
import io.cognitionstreams.schema.ChatToolCall;

/** Tools and tool calls as both chat APIs carry them. */
final class ToolJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolJson() {
    }

    /** Every tool name a call shows the model: its tools, and those its history's calls name. */
    static Set<String> names(ModelCall call) {
        Set<String> names = new LinkedHashSet<>();
        call.tools().forEach(tool -> names.add(tool.name()));
        for (PromptMessage message : call.prompt()) {
            message.toolCalls().forEach(made -> names.add(made.getName()));
        }
        return names;
    }

    /** A tool's JSON schema; one that is not an object schema is sent as the empty one, which the APIs take. */
    static ObjectNode schema(ToolSpec tool) {
        try {
            JsonNode schema = JSON.readTree(tool.parameters());
            if (schema != null && schema.isObject()) {
                return (ObjectNode) schema;
            }
        } catch (JsonProcessingException e) {
            // the assembly sends only schemas that parse; the API must still get one
        }
        return JSON.createObjectNode().put("type", "object");
    }

    /**
     * A call the model made, under the pipeline's name of the tool; a name it was not offered stays as it gave it
     * (the worker treats such a call like a malformed EXECUTE line).
     */
    static ChatToolCall call(String id, String wireName, String arguments, WireNames names) {
        return ChatToolCall.newBuilder()
                .setId(id)
                .setName(names.pipeline(wireName).orElse(wireName))
                .setArguments(arguments)
                .build();
    }
}
