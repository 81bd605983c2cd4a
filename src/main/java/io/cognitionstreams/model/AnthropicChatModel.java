package io.cognitionstreams.model;

import java.net.URI;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.schema.ChatToolCall;

/**
 * Anthropic's Messages API ({@code POST <base>/messages}, base e.g. {@code https://api.anthropic.com/v1}). What
 * differs from chat completions: the system prompt goes apart ({@code system}); a message's content is blocks, a
 * call a {@code tool_use} block of the assistant's (its {@code input} an object) and a result a
 * {@code tool_result} block of the user's, all results of one turn in the one user message after the calls;
 * {@code max_tokens} is required; the key goes as {@code x-api-key} with an {@code anthropic-version}. Streamed,
 * the answer comes as events: {@code message_start} (input tokens), {@code content_block_start} /
 * {@code content_block_delta} ({@code text_delta}, {@code input_json_delta}) / {@code content_block_stop} per
 * block, {@code message_delta} (output tokens), {@code message_stop}; an {@code error} event fails the call.
 * Errors are {@code {"type": "error", "error": {"type": ..., "message": ...}}}; 529 ({@code overloaded_error})
 * is retriable like any 5xx.
 */
public final class AnthropicChatModel implements ModelClient {

    /** The API version these shapes are of. */
    public static final String VERSION = "2023-06-01";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Error types of a failure the same call may not meet again (the others are the caller's to fix). */
    private static final Set<String> RETRIABLE_ERRORS = Set.of("rate_limit_error", "api_error", "overloaded_error",
            "timeout_error");

    private final ModelHttp http;
    private final String apiKey;
    private final String modelOverride;
    private final int maxTokens;

    /**
     * @param modelOverride model name sent instead of the packet's target model (null: the packet's)
     * @param maxTokens     the most the answer may have (the API's required {@code max_tokens})
     */
    public AnthropicChatModel(String baseUrl, String apiKey, String modelOverride, Duration timeout, int maxTokens) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.http = new ModelHttp(URI.create(base + "/messages"), timeout);
        this.apiKey = apiKey;
        this.modelOverride = modelOverride;
        this.maxTokens = maxTokens;
    }

    @Override
    public CompletableFuture<Completion> call(ModelCall call) {
        String answering = modelOverride != null ? modelOverride : call.model();
        WireNames names = WireNames.of(ToolJson.names(call));
        HttpRequest.Builder request = http.post(body(answering, call, names).toString())
                .header("anthropic-version", VERSION);
        if (apiKey != null && !apiKey.isBlank()) {
            request.header("x-api-key", apiKey);
        }
        try {
            return http.send(request.build(), call.streamed() ? new Events(call, answering, names) : null,
                    body -> answer(body, answering, names), this::refusal);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(http.failed(e));
        }
    }

    private ObjectNode body(String answering, ModelCall call, WireNames names) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", answering);
        body.put("max_tokens", maxTokens);
        body.put("temperature", 0);
        StringBuilder system = new StringBuilder();
        ArrayNode messages = JSON.createArrayNode();
        for (PromptMessage message : call.prompt()) {
            if (message.role().equals("system")) {
                system.append(system.isEmpty() ? "" : "\n\n").append(message.content());
                continue;
            }
            // Results are the user's; a turn's results and the prompt after them make one user message, which
            // the API wants anyway (roles alternate), results first.
            String role = message.role().equals("assistant") ? "assistant" : "user";
            ArrayNode content = contentOf(messages, role);
            if (message.role().equals("tool")) {
                content.addObject().put("type", "tool_result").put("tool_use_id", message.toolCallId())
                        .put("content", message.content());
                continue;
            }
            if (!message.content().isEmpty()) {
                // The API refuses empty text blocks.
                content.addObject().put("type", "text").put("text", message.content());
            }
            for (ChatToolCall made : message.toolCalls()) {
                content.addObject().put("type", "tool_use").put("id", made.getId())
                        .put("name", names.wire(made.getName())).set("input", input(made.getArguments()));
            }
        }
        if (!system.isEmpty()) {
            body.put("system", system.toString());
        }
        body.set("messages", messages);
        if (!call.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolSpec tool : call.tools()) {
                ObjectNode rendered = tools.addObject().put("name", names.wire(tool.name()));
                if (!tool.description().isEmpty()) {
                    rendered.put("description", tool.description());
                }
                rendered.set("input_schema", ToolJson.schema(tool));
            }
        }
        if (call.streamed()) {
            body.put("stream", true);
        }
        return body;
    }

    /** The content of the last message when it has {@code role}, else of a new message of that role. */
    private static ArrayNode contentOf(ArrayNode messages, String role) {
        JsonNode last = messages.isEmpty() ? null : messages.get(messages.size() - 1);
        if (last != null && last.path("role").asText().equals(role)) {
            return (ArrayNode) last.get("content");
        }
        ObjectNode message = messages.addObject().put("role", role);
        return message.putArray("content");
    }

    /**
     * A call's input must be an object: arguments that are not one (a call the pipeline refused as malformed) go
     * as the text the model wrote, so it reads its mistake back.
     */
    private static JsonNode input(String arguments) {
        try {
            JsonNode parsed = JSON.readTree(arguments);
            if (parsed != null && parsed.isObject()) {
                return parsed;
            }
        } catch (JsonProcessingException e) {
            // below
        }
        return JSON.createObjectNode().put("arguments", arguments);
    }

    private Completion answer(String body, String answering, WireNames names) {
        JsonNode answer;
        try {
            answer = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new CompletionException(http.unreadable("returned invalid JSON", body, e));
        }
        if (answer == null || !answer.path("content").isArray()) {
            throw new CompletionException(http.unreadable("returned no content", body, null));
        }
        StringBuilder text = new StringBuilder();
        List<ChatToolCall> calls = new ArrayList<>();
        for (JsonNode block : answer.get("content")) {
            switch (block.path("type").asText()) {
                case "text" -> text.append(block.path("text").asText(""));
                case "tool_use" -> calls.add(ToolJson.call(block.path("id").asText(""),
                        block.path("name").asText(""), arguments(block.get("input")), names));
                default -> { } // thinking and other blocks are not the answer
            }
        }
        if (text.isEmpty() && calls.isEmpty()) {
            throw new CompletionException(http.unreadable("returned neither text nor tool calls", body, null));
        }
        JsonNode usage = answer.path("usage");
        return new Completion(text.toString(), calls, answering, count(usage, "input_tokens"),
                count(usage, "output_tokens"));
    }

    private static String arguments(JsonNode input) {
        return input == null || input.isNull() ? "{}" : input.toString();
    }

    private static Integer count(JsonNode usage, String field) {
        return usage.path(field).isNumber() ? usage.get(field).asInt() : null;
    }

    private ModelException refusal(int status, String body, HttpHeaders headers) {
        return http.refused(status, message(body), headers);
    }

    /** The error's type and message from {@code {"type": "error", "error": {...}}}; else the body itself. */
    private static String message(String body) {
        try {
            JsonNode error = JSON.readTree(body).path("error");
            if (error.path("message").isTextual()) {
                return error.path("type").asText("error") + ": " + error.get("message").asText();
            }
        } catch (JsonProcessingException | RuntimeException e) {
            // not JSON: the body is the reason
        }
        return ModelHttp.abbreviate(body);
    }

    /** A streamed answer put together from its events; text pieces go to the call's deltas as they arrive. */
    private final class Events extends StreamedAnswer {
        private final Map<Integer, ToolUse> uses = new TreeMap<>();
        private Integer inputTokens;
        private Integer outputTokens;
        private boolean stopped;

        Events(ModelCall call, String answering, WireNames names) {
            super(http, call, answering, names);
        }

        @Override
        protected void event(String name, String data) throws ModelException {
            if (stopped) {
                return;
            }
            JsonNode event = json(data);
            // The data's type names the event; the event: line says the same.
            String type = event.path("type").asText(name);
            switch (type) {
                case "message_start" -> {
                    JsonNode usage = event.path("message").path("usage");
                    inputTokens = count(usage, "input_tokens");
                    outputTokens = count(usage, "output_tokens");
                }
                case "content_block_start" -> {
                    JsonNode block = event.path("content_block");
                    if (block.path("type").asText().equals("tool_use")) {
                        ToolUse use = new ToolUse(block.path("id").asText(""), block.path("name").asText(""));
                        JsonNode input = block.get("input");
                        // Its input is {} here and comes in input_json_delta pieces; a whole one is kept.
                        if (input != null && input.isObject() && !input.isEmpty()) {
                            use.json.append(input);
                        }
                        uses.put(event.path("index").asInt(), use);
                    } else if (block.path("type").asText().equals("text") && block.path("text").isTextual()) {
                        piece(block.get("text").asText());
                    }
                }
                case "content_block_delta" -> {
                    JsonNode delta = event.path("delta");
                    switch (delta.path("type").asText()) {
                        case "text_delta" -> piece(delta.path("text").asText(""));
                        case "input_json_delta" -> {
                            ToolUse use = uses.get(event.path("index").asInt());
                            if (use == null) {
                                throw http.unreadable("streamed tool input for a block it never started", data,
                                        null);
                            }
                            use.json.append(delta.path("partial_json").asText(""));
                        }
                        default -> { } // thinking, signatures, citations: not the answer
                    }
                }
                case "message_delta" -> {
                    JsonNode usage = event.path("usage");
                    if (usage.path("output_tokens").isNumber()) {
                        outputTokens = usage.get("output_tokens").asInt();
                    }
                    if (usage.path("input_tokens").isNumber()) {
                        inputTokens = usage.get("input_tokens").asInt();
                    }
                }
                case "message_stop" -> stopped = true;
                case "error" -> {
                    JsonNode error = event.path("error");
                    throw new ModelException("model endpoint " + http.endpoint() + " failed mid-stream: "
                            + error.path("type").asText("error") + ": " + error.path("message").asText(data),
                            RETRIABLE_ERRORS.contains(error.path("type").asText()), null);
                }
                default -> { } // ping, content_block_stop, and events added later
            }
        }

        @Override
        public Completion end() throws ModelException {
            if (!stopped) {
                throw cutOff("message_stop");
            }
            List<ChatToolCall> calls = new ArrayList<>();
            uses.values().forEach(use -> calls.add(ToolJson.call(use.id, use.name,
                    use.json.isEmpty() ? "{}" : use.json.toString(), names)));
            if (text.isEmpty() && calls.isEmpty()) {
                throw new ModelException("model endpoint " + http.endpoint() + " streamed neither text nor tool "
                        + "calls", false, null);
            }
            return new Completion(text.toString(), calls, answering, inputTokens, outputTokens);
        }
    }

    private static final class ToolUse {
        final String id;
        final String name;
        final StringBuilder json = new StringBuilder();

        ToolUse(String id, String name) {
            this.id = id;
            this.name = name;
        }
    }
}
