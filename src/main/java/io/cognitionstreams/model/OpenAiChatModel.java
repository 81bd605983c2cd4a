package io.cognitionstreams.model;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.schema.ChatToolCall;

/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server, hosted APIs).
 * The base URL is the part before {@code /chat/completions}, e.g. {@code http://localhost:11434/v1}.
 */
public final class OpenAiChatModel implements ModelClient {

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http;
    private final URI endpoint;
    private final String apiKey;
    private final String modelOverride;
    private final Duration timeout;

    /**
     * @param modelOverride model name sent to the endpoint instead of the packet's target model (null: use the
     *                      packet's), for endpoints that serve one local model under another name
     */
    public OpenAiChatModel(String baseUrl, String apiKey, String modelOverride, Duration timeout) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.endpoint = URI.create(base + "/chat/completions");
        this.apiKey = apiKey;
        this.modelOverride = modelOverride;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public CompletableFuture<Completion> call(ModelCall call) {
        String answering = modelOverride != null ? modelOverride : call.model();
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(answering, call.prompt()).toString()));
        if (apiKey != null && !apiKey.isBlank()) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        // Asynchronous: the worker keeps many calls in flight on the client's own few threads.
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString())
                .handle((response, failure) -> {
                    if (failure != null) {
                        throw new CompletionException(unreachable(failure));
                    }
                    try {
                        return answer(response, answering);
                    } catch (ModelException e) {
                        throw new CompletionException(e);
                    }
                });
    }

    private ObjectNode body(String answering, List<PromptMessage> prompt) {
        ObjectNode body = json.createObjectNode();
        body.put("model", answering);
        body.put("temperature", 0);
        ArrayNode messages = body.putArray("messages");
        for (PromptMessage message : prompt) {
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
                for (ChatToolCall call : message.toolCalls()) {
                    calls.addObject().put("id", call.getId()).put("type", "function").putObject("function")
                            .put("name", call.getName()).put("arguments", call.getArguments());
                }
            }
        }
        return body;
    }

    /** Why no answer came: the cause's own words, never "null" (a refused connection has no message). */
    private ModelException unreachable(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        if (cause instanceof HttpTimeoutException) {
            why = "no answer within " + timeout.toMillis() + " ms";
        } else if (cause instanceof ConnectException) {
            why = "connection refused" + (cause.getMessage() != null ? " (" + cause.getMessage() + ")" : "");
        }
        return new ModelException("model endpoint " + endpoint + " unreachable: " + why,
                !(cause instanceof IllegalArgumentException), cause);
    }

    private Completion answer(HttpResponse<String> response, String answering) throws ModelException {
        int status = response.statusCode();
        if (status != 200) {
            boolean retriable = status == 429 || status >= 500 || status == 408;
            throw new ModelException("model endpoint " + endpoint + " answered HTTP " + status + ": "
                    + abbreviate(response.body()), retriable, null, RetryAfter.parse(
                    response.headers().firstValue("Retry-After"), Instant.now()).orElse(null));
        }
        try {
            JsonNode answer = json.readTree(response.body());
            JsonNode content = answer.path("choices").path(0).path("message").path("content");
            if (!content.isTextual()) {
                throw new ModelException("model endpoint " + endpoint + " returned no message content: "
                        + abbreviate(response.body()), false, null);
            }
            JsonNode usage = answer.path("usage");
            return new Completion(content.asText(), answering,
                    usage.has("prompt_tokens") ? usage.get("prompt_tokens").asInt() : null,
                    usage.has("completion_tokens") ? usage.get("completion_tokens").asInt() : null);
        } catch (IOException e) {
            throw new ModelException("model endpoint " + endpoint + " returned invalid JSON: "
                    + abbreviate(response.body()), false, e);
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 300 ? text : text.substring(0, 300) + "...";
    }
}
