package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.schema.ChatToolCall;


/**
 * Against a local HTTP server that answers like a chat-completions endpoint (a test double of the HTTP API, on
 * loopback): what the client sends, and how it reads answers and failures.
 */
class OpenAiChatModelTest {

    private final ObjectMapper json = new ObjectMapper();
    private final List<JsonNode> requests = new ArrayList<>();
    private final List<String> authorizations = new ArrayList<>();
    private HttpServer server;
    private int status = 200;
    private String answer;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", exchange -> {
            requests.add(json.readTree(exchange.getRequestBody()));
            authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private OpenAiChatModel client(String modelOverride) {
        return new OpenAiChatModel("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/", "k-123",
                modelOverride, Duration.ofSeconds(5));
    }

    @Test
    void sendsTheRenderedPromptAndReadsTheAnswerWithUsage() throws Exception {
        answer = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"PLAN: x\"}}],"
                + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}";

        ModelClient.Completion completion = client(null).complete("gpt-4o",
                List.of(new PromptMessage("system", "rules"), new PromptMessage("user", "hi")));

        assertThat(completion).isEqualTo(new ModelClient.Completion("PLAN: x", "gpt-4o", 12, 3));
        JsonNode sent = requests.get(0);
        assertThat(sent.path("model").asText()).isEqualTo("gpt-4o");
        assertThat(sent.path("temperature").asInt()).isZero();
        assertThat(sent.path("messages").toString())
                .isEqualTo("[{\"role\":\"system\",\"content\":\"rules\"},{\"role\":\"user\",\"content\":\"hi\"}]");
        assertThat(authorizations).containsExactly("Bearer k-123");
    }

    @Test
    void parallelToolCallsAndTheirResultsAreSentInTheChatFormatsPairing() throws Exception {
        answer = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"RESPONSE: both read\"}}]}";
        List<ChatToolCall> calls = List.of(
                ChatToolCall.newBuilder().setId("c1").setName("read").setArguments("{\"path\":\"a\"}").build(),
                ChatToolCall.newBuilder().setId("c2").setName("read").setArguments("{\"path\":\"b\"}").build());

        client(null).complete("gpt-4o", List.of(new PromptMessage("user", "read a and b"),
                new PromptMessage("assistant", "", null, calls), new PromptMessage("tool", "A", "c1", List.of()),
                new PromptMessage("tool", "B", "c2", List.of())));

        assertThat(requests.get(0).path("messages").toString()).isEqualTo("[{\"role\":\"user\",\"content\":"
                + "\"read a and b\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                + "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":"
                + "\"{\\\"path\\\":\\\"a\\\"}\"}},"
                + "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":"
                + "\"{\\\"path\\\":\\\"b\\\"}\"}}]},"
                + "{\"role\":\"tool\",\"content\":\"A\",\"tool_call_id\":\"c1\"},"
                + "{\"role\":\"tool\",\"content\":\"B\",\"tool_call_id\":\"c2\"}]");
    }

    @Test
    void aModelOverrideIsSentAndNamedAsTheAnsweringModel() throws Exception {
        answer = "{\"choices\":[{\"message\":{\"content\":\"ok\"}}]}";

        ModelClient.Completion completion = client("llama3.1").complete("gpt-4o", List.of());

        assertThat(requests.get(0).path("model").asText()).isEqualTo("llama3.1");
        assertThat(completion.model()).isEqualTo("llama3.1");
        assertThat(completion.promptTokens()).isNull();
    }

    @Test
    void rateLimitsAndServerErrorsAreRetriableClientErrorsAreNot() {
        answer = "{\"error\":\"slow down\"}";
        status = 429;
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("HTTP 429", "slow down");
                });
        status = 400;
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> assertThat(e.retriable()).isFalse());
    }

    @Test
    void anAnswerWithoutContentIsAClearError() {
        answer = "{\"choices\":[]}";
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOf(ModelClient.ModelException.class).hasMessageContaining("no message content");
    }

    @Test
    void anUnreachableEndpointIsRetriable() {
        server.stop(0);
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("unreachable");
                });
    }
}
