package io.cognitionstreams.model;

import java.net.URI;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server, hosted APIs).
 * The base URL is the part before {@code /chat/completions}, e.g. {@code http://localhost:11434/v1}. Tools go as
 * {@code tools} of type {@code function}, calls come back as {@code message.tool_calls} (or, streamed, as
 * {@code delta.tool_calls} pieces put together by their {@code index}); a streamed call asks for the usage in the
 * last chunk ({@code stream_options.include_usage}) and ends with {@code data: [DONE]}.
 */
public final class OpenAiChatModel implements ModelClient {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ModelHttp http;
    private final String apiKey;
    private final String modelOverride;

    /**
     * @param modelOverride model name sent to the endpoint instead of the packet's target model (null: use the
     *                      packet's), for endpoints that serve one local model under another name
     */
    public OpenAiChatModel(String baseUrl, String apiKey, String modelOverride, Duration timeout) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.http = new ModelHttp(URI.create(base + "/chat/completions"), timeout);
        this.apiKey = apiKey;
        this.modelOverride = modelOverride;
    }

    @Override
    public CompletableFuture<Completion> call(ModelCall call) {
        String answering = modelOverride != null ? modelOverride : call.model();
        WireNames names = WireNames.of(ToolJson.names(call));
        HttpRequest.Builder request = http.post(body(answering, call, names).toString());
        if (apiKey != null && !apiKey.isBlank()) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        try {
            return http.send(request.build(), call.streamed() ? new Chunks(call, answering, names) : null,
                    body -> answer(body, answering, names), this::refusal);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(http.failed(e));
        }
    }

    private static ObjectNode body(String answering, ModelCall call, WireNames names) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", answering);
        body.put("temperature", 0);
        ArrayNode messages = body.putArray("messages");
        for (PromptMessage message : call.prompt()) {
            ObjectNode rendered = messages.addObject().put("role", message.role());
            if (message.toolCalls().isEmpty() || !message.content().isEmpty()) {
                rendered.put("content", message.content());
            } else {
                // An assistant message that only calls tools has no content, in the form the API itself returns.
                rendered.putNull("content");
            }
            if (message.toolCallId() != null) {
                rendered.put("tool_call_id", message.toolCallId());
            }
            if (!message.toolCalls().isEmpty()) {
                ArrayNode calls = rendered.putArray("tool_calls");
                for (ChatToolCall made : message.toolCalls()) {
                    calls.addObject().put("id", made.getId()).put("type", "function").putObject("function")
                            .put("name", names.wire(made.getName())).put("arguments", made.getArguments());
                }
            }
        }
        if (!call.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolSpec tool : call.tools()) {
                ObjectNode function = tools.addObject().put("type", "function").putObject("function");
                function.put("name", names.wire(tool.name()));
                if (!tool.description().isEmpty()) {
                    function.put("description", tool.description());
                }
                function.set("parameters", ToolJson.schema(tool));
            }
        }
        if (call.streamed()) {
            body.put("stream", true);
            body.putObject("stream_options").put("include_usage", true);
        }
        return body;
    }

    private Completion answer(String body, String answering, WireNames names) {
        JsonNode answer;
        try {
            answer = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new CompletionException(http.unreadable("returned invalid JSON", body, e));
        }
        JsonNode message = answer == null ? null : answer.path("choices").path(0).path("message");
        if (message == null || !message.isObject()) {
            throw new CompletionException(http.unreadable("returned no message", body, null));
        }
        JsonNode content = message.path("content");
        List<ChatToolCall> calls = new ArrayList<>();
        for (JsonNode made : message.path("tool_calls")) {
            JsonNode function = made.path("function");
            calls.add(ToolJson.call(made.path("id").asText(""), function.path("name").asText(""),
                    arguments(function.get("arguments")), names));
        }
        if (!content.isTextual() && calls.isEmpty()) {
            throw new CompletionException(http.unreadable("returned neither message content nor tool calls",
                    body, null));
        }
        JsonNode usage = answer.path("usage");
        return new Completion(content.isTextual() ? content.asText() : "", calls, answering,
                count(usage, "prompt_tokens"), count(usage, "completion_tokens"));
    }

    /** Arguments are JSON text; some servers send the object itself, and a call without arguments has none. */
    private static String arguments(JsonNode arguments) {
        if (arguments == null || arguments.isNull()) {
            return "{}";
        }
        return arguments.isTextual() ? arguments.asText() : arguments.toString();
    }

    private static Integer count(JsonNode usage, String field) {
        return usage.path(field).isNumber() ? usage.get(field).asInt() : null;
    }

    /** OpenAI's error body is {@code {"error": {"message": ...}}}; others send text: either is the reason. */
    private ModelException refusal(int status, String body, HttpHeaders headers) {
        String message = ModelHttp.abbreviate(body);
        try {
            JsonNode error = JSON.readTree(body).path("error");
            if (error.path("message").isTextual()) {
                message = error.get("message").asText();
            } else if (error.isTextual()) {
                message = error.asText();
            }
        } catch (JsonProcessingException | RuntimeException e) {
            // not JSON: the body is the reason
        }
        return http.refused(status, message, headers);
    }

    /** A streamed answer put together from its chunks; text pieces go to the call's deltas as they arrive. */
    private final class Chunks extends StreamedAnswer {
        private final Map<Integer, PartialCall> calls = new TreeMap<>();
        private Integer promptTokens;
        private Integer completionTokens;
        private boolean finished;
        private boolean done;

        Chunks(ModelCall call, String answering, WireNames names) {
            super(http, call, answering, names);
        }

        @Override
        protected void event(String event, String data) throws ModelException {
            if (done) {
                return;
            }
            if (data.strip().equals("[DONE]")) {
                done = true;
                return;
            }
            JsonNode chunk = json(data);
            JsonNode error = chunk.path("error");
            if (!error.isMissingNode() && !error.isNull()) {
                int code = error.path("code").asInt(0);
                throw new ModelException("model endpoint " + http.endpoint() + " failed mid-stream: "
                        + (error.path("message").isTextual() ? error.get("message").asText() : error.toString()),
                        ModelHttp.retriable(code), null);
            }
            JsonNode choice = chunk.path("choices").path(0);
            JsonNode delta = choice.path("delta");
            if (delta.path("content").isTextual()) {
                piece(delta.get("content").asText());
            }
            int position = 0;
            for (JsonNode piece : delta.path("tool_calls")) {
                int index = piece.path("index").isInt() ? piece.get("index").asInt() : position;
                position++;
                PartialCall partial = calls.computeIfAbsent(index, i -> new PartialCall());
                // Ids and names come whole in the first piece (some servers repeat them); arguments in pieces.
                if (partial.id.isEmpty()) {
                    partial.id = piece.path("id").asText("");
                }
                JsonNode function = piece.path("function");
                if (partial.name.isEmpty()) {
                    partial.name = function.path("name").asText("");
                }
                JsonNode arguments = function.get("arguments");
                if (arguments != null && !arguments.isNull()) {
                    partial.arguments.append(arguments.isTextual() ? arguments.asText() : arguments.toString());
                    partial.hasArguments = true;
                }
            }
            if (choice.path("finish_reason").isTextual()) {
                finished = true;
            }
            JsonNode usage = chunk.path("usage");
            if (usage.isObject()) {
                promptTokens = count(usage, "prompt_tokens");
                completionTokens = count(usage, "completion_tokens");
            }
        }

        @Override
        public Completion end() throws ModelException {
            if (!done && !finished) {
                throw cutOff("its last chunk (no finish_reason, no [DONE])");
            }
            List<ChatToolCall> made = new ArrayList<>();
            calls.values().forEach(partial -> made.add(ToolJson.call(partial.id, partial.name,
                    partial.hasArguments ? partial.arguments.toString() : "{}", names)));
            if (text.isEmpty() && made.isEmpty()) {
                throw new ModelException("model endpoint " + http.endpoint() + " streamed neither content nor tool "
                        + "calls", false, null);
            }
            return new Completion(text.toString(), made, answering, promptTokens, completionTokens);
        }
    }

    private static final class PartialCall {
        String id = "";
        String name = "";
        final StringBuilder arguments = new StringBuilder();
        boolean hasArguments;
    }
}
