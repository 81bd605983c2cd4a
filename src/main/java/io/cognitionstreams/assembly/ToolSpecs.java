package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.ToolSpec;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * The tools a model that calls them natively is given (the packet's {@code tools}, sent as the API's): those the
 * active skill may call, each with its JSON schema, within a budget. A schema costs prompt tokens like any text, so
 * each spec is counted as the JSON the API receives, and every spec that still fits is kept, in name order; one
 * that does not is left out whole, never cut (a cut schema is no schema).
 */
final class ToolSpecs {

    /** Longer descriptions are cut: some servers document a tool at length, and the APIs bound it. */
    static final int MAX_DESCRIPTION = 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EMPTY_SCHEMA = "{\"type\":\"object\"}";

    private ToolSpecs() {
    }

    /** @param offered how many the skill may call; {@code specs} those that fit, costing {@code tokens} */
    record Fitted(List<ToolSpec> specs, int tokens, int offered) {
        static final Fitted NONE = new Fitted(List.of(), 0, 0);
    }

    static Fitted fit(Optional<Skill> skill, RenderedTools tools, int budget, TokenCounter counter) {
        List<RenderedTools.Entry> permitted = tools.permitted(skill);
        List<ToolSpec> kept = new ArrayList<>();
        int used = 0;
        for (RenderedTools.Entry entry : permitted) {
            ToolSpec spec = entry.spec();
            int tokens = tokens(spec, counter);
            if (used + tokens <= budget) {
                kept.add(spec);
                used += tokens;
            }
        }
        return new Fitted(kept, used, permitted.size());
    }

    static ToolSpec spec(ToolDescriptor tool) {
        String description = tool.getDescription().strip();
        if (description.length() > MAX_DESCRIPTION) {
            description = description.substring(0, MAX_DESCRIPTION - 3) + "...";
        }
        return ToolSpec.newBuilder()
                .setName(tool.getName())
                .setDescription(description)
                .setParameters(schema(tool.getInputSchema()))
                .build();
    }

    /** As the API gets it: the server's schema when it is an object schema, compact; else the empty one. */
    private static String schema(String inputSchema) {
        if (inputSchema == null) {
            return EMPTY_SCHEMA;
        }
        try {
            JsonNode schema = JSON.readTree(inputSchema);
            return schema != null && schema.isObject() ? schema.toString() : EMPTY_SCHEMA;
        } catch (JsonProcessingException e) {
            return EMPTY_SCHEMA;
        }
    }

    /** A spec's tokens: the function object the API is sent, and the framing of one more item. */
    static int tokens(ToolSpec spec, TokenCounter counter) {
        ObjectNode function = JSON.createObjectNode().put("name", spec.getName())
                .put("description", spec.getDescription());
        try {
            function.set("parameters", JSON.readTree(spec.getParameters()));
        } catch (JsonProcessingException e) {
            function.put("parameters", spec.getParameters());
        }
        return counter.count(function.toString()) + PromptRenderer.MESSAGE_OVERHEAD;
    }
}
