package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.ModelClient.ModelCall;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.prompt.ModelClient.ToolSpec;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.testing.ModelDouble;
import io.cognitionstreams.testing.ModelDouble.Answer;

/**
 * Against a double of a chat-completions endpoint on loopback, answering in the shapes OpenAI documents (and
 * Ollama and vLLM serve): what the client sends, and how it reads answers, streams and failures.
 */
class OpenAiChatModelTest {

    private static final List<ToolSpec> TOOLS = List.of(
            new ToolSpec("shell.run", "Runs a command", "{\"type\":\"object\",\"properties\":{\"command\":"
                    + "{\"type\":\"string\"}},\"required\":[\"command\"]}"),
            new ToolSpec("mcp__files__read_text_file", "Reads a file", "{\"type\":\"object\"}"));

    private ModelDouble endpoint;

    @BeforeEach
    void start() throws IOException {
        endpoint = new ModelDouble("/v1/chat/completions");
    }

    @AfterEach
    void stop() {
        endpoint.close();
    }

    private OpenAiChatModel client(String modelOverride) {
        return new OpenAiChatModel(endpoint.baseUrl() + "/", "k-123", modelOverride, Duration.ofSeconds(5));
    }

    private JsonNode sent() {
        return endpoint.requests().get(0).body();
    }

    @Test
    void sendsTheRenderedPromptAndReadsTheAnswerWithUsage() throws Exception {
        endpoint.enqueue(Answer.json("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"PLAN: x\"}}],"
                + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}"));

        ModelClient.Completion completion = client(null).complete("gpt-4o",
                List.of(new PromptMessage("system", "rules"), new PromptMessage("user", "hi")));

        assertThat(completion).isEqualTo(new ModelClient.Completion("PLAN: x", "gpt-4o", 12, 3));
        assertThat(sent().path("model").asText()).isEqualTo("gpt-4o");
        assertThat(sent().path("temperature").asInt()).isZero();
        assertThat(sent().has("tools")).as("no tools, no tools field").isFalse();
        assertThat(sent().has("stream")).isFalse();
        assertThat(sent().path("messages").toString())
                .isEqualTo("[{\"role\":\"system\",\"content\":\"rules\"},{\"role\":\"user\",\"content\":\"hi\"}]");
        assertThat(endpoint.requests().get(0).headers().getFirst("Authorization")).isEqualTo("Bearer k-123");
    }

    @Test
    void parallelToolCallsAndTheirResultsAreSentInTheChatFormatsPairing() throws Exception {
        endpoint.enqueue(Answer.json("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"ok\"}}]}"));
        List<ChatToolCall> calls = List.of(
                ChatToolCall.newBuilder().setId("c1").setName("shell.run").setArguments("{\"command\":\"ls\"}")
                        .build(),
                ChatToolCall.newBuilder().setId("c2").setName("mcp__files__read_text_file")
                        .setArguments("{\"path\":\"b\"}").build());

        client(null).complete("gpt-4o", List.of(new PromptMessage("user", "read a and b"),
                new PromptMessage("assistant", "", null, calls), new PromptMessage("tool", "A", "c1", List.of()),
                new PromptMessage("tool", "B", "c2", List.of())));

        assertThat(sent().path("messages").toString()).isEqualTo("[{\"role\":\"user\",\"content\":"
                + "\"read a and b\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                + "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"shell_run\",\"arguments\":"
                + "\"{\\\"command\\\":\\\"ls\\\"}\"}},"
                + "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"mcp__files__read_text_file\","
                + "\"arguments\":\"{\\\"path\\\":\\\"b\\\"}\"}}]},"
                + "{\"role\":\"tool\",\"content\":\"A\",\"tool_call_id\":\"c1\"},"
                + "{\"role\":\"tool\",\"content\":\"B\",\"tool_call_id\":\"c2\"}]");
    }

    @Test
    void toolsGoAsFunctionsUnderNamesTheApiTakesAndCallsComeBackUnderThePipelinesNames() throws Exception {
        // OpenAI's documented answer to a call with tools: content null, tool_calls with arguments as JSON text.
        endpoint.enqueue(Answer.json("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                + "{\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"shell_run\","
                + "\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}},"
                + "{\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"mcp__files__read_text_file\","
                + "\"arguments\":{\"path\":\"x\"}}}]},\"finish_reason\":\"tool_calls\"}],"
                + "\"usage\":{\"prompt_tokens\":80,\"completion_tokens\":20}}"));

        ModelClient.Completion completion = client(null).complete(new ModelCall("gpt-4o",
                List.of(new PromptMessage("user", "list")), TOOLS, null));

        JsonNode tools = sent().path("tools");
        assertThat(tools).hasSize(2);
        assertThat(tools.get(0).path("type").asText()).isEqualTo("function");
        assertThat(tools.get(0).path("function").path("name").asText()).isEqualTo("shell_run");
        assertThat(tools.get(0).path("function").path("description").asText()).isEqualTo("Runs a command");
        assertThat(tools.get(0).path("function").path("parameters").path("required").get(0).asText())
                .isEqualTo("command");
        assertThat(tools.get(1).path("function").path("name").asText()).isEqualTo("mcp__files__read_text_file");
        assertThat(completion.text()).as("content null is no text, not a refusal").isEmpty();
        assertThat(completion.toolCalls()).extracting(ChatToolCall::getId, ChatToolCall::getName,
                ChatToolCall::getArguments).containsExactly(
                org.assertj.core.groups.Tuple.tuple("call_a", "shell.run", "{\"command\":\"ls\"}"),
                org.assertj.core.groups.Tuple.tuple("call_b", "mcp__files__read_text_file", "{\"path\":\"x\"}"));
        assertThat(completion.promptTokens()).isEqualTo(80);
    }

    @Test
    void hostileCallsArePassedOnAsMadeForTheWorkerToRefuse() throws Exception {
        String huge = "x".repeat(10 * 1024 * 1024);
        endpoint.enqueue(Answer.json("{\"choices\":[{\"message\":{\"content\":null,\"tool_calls\":["
                + "{\"id\":\"d\",\"type\":\"function\",\"function\":{\"name\":\"shell_run\",\"arguments\":\"not json\"}},"
                + "{\"id\":\"d\",\"type\":\"function\",\"function\":{\"name\":\"rm_rf\",\"arguments\":\"{}\"}},"
                + "{\"id\":\"e\",\"type\":\"function\",\"function\":{\"name\":\"shell_run\",\"arguments\":\"" + huge
                + "\"}}]}}]}"));

        ModelClient.Completion completion = client(null).complete(new ModelCall("gpt-4o",
                List.of(new PromptMessage("user", "go")), TOOLS, null));

        assertThat(completion.toolCalls()).extracting(ChatToolCall::getId).containsExactly("d", "d", "e");
        assertThat(completion.toolCalls().get(0).getArguments()).isEqualTo("not json");
        assertThat(completion.toolCalls().get(1).getName()).as("an unknown name stays as the model gave it")
                .isEqualTo("rm_rf");
        assertThat(completion.toolCalls().get(2).getArguments()).hasSize(huge.length());
    }

    @Test
    void aStreamedAnswerGivesItsTextAsItArrivesAndPutsToolCallsTogetherByIndex() throws Exception {
        endpoint.enqueue(Answer.events(
                "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
                        + "{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
                ": keep-alive\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me \"},\"finish_reason\":null}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"look.\"},\"finish_reason\":null}]}\r\n\r\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":"
                        + "\"function\",\"function\":{\"name\":\"shell_run\",\"arguments\":\"\"}}]},"
                        + "\"finish_reason\":null}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"type\":"
                        + "\"function\",\"function\":{\"name\":\"mcp__files__read_text_file\",\"arguments\":"
                        + "\"{\\\"pa\"}}]},\"finish_reason\":null}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                        + "{\"arguments\":\"{\\\"command\\\":\"}}]},\"finish_reason\":null}]}\n\n",
                "data:\n\n",
                "event: ping\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                        + "{\"arguments\":\"\\\"ls\\\"}\"}},{\"index\":1,\"function\":{\"arguments\":"
                        + "\"th\\\":\\\"a\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
                "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":9}}\n\n",
                "data: [DONE]\n\n"));
        List<String> deltas = new ArrayList<>();

        ModelClient.Completion completion = client(null).complete(new ModelCall("gpt-4o",
                List.of(new PromptMessage("user", "go")), TOOLS, deltas::add));

        assertThat(sent().path("stream").asBoolean()).isTrue();
        assertThat(sent().path("stream_options").path("include_usage").asBoolean()).isTrue();
        assertThat(deltas).containsExactly("Let me ", "look.");
        assertThat(completion.text()).isEqualTo("Let me look.");
        assertThat(completion.toolCalls()).extracting(ChatToolCall::getId, ChatToolCall::getName,
                ChatToolCall::getArguments).containsExactly(
                org.assertj.core.groups.Tuple.tuple("call_1", "shell.run", "{\"command\":\"ls\"}"),
                org.assertj.core.groups.Tuple.tuple("call_2", "mcp__files__read_text_file", "{\"path\":\"a\"}"));
        assertThat(completion.promptTokens()).isEqualTo(30);
        assertThat(completion.completionTokens()).isEqualTo(9);
    }

    @Test
    void aStreamCutOffMidChunkIsARetriableFailureNotAnAnswer() {
        endpoint.enqueue(Answer.events("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"del"));
        List<String> deltas = new ArrayList<>();
        assertThatThrownBy(() -> client(null).complete(new ModelCall("gpt-4o",
                List.of(new PromptMessage("user", "go")), List.of(), deltas::add)))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("stream ended before its last chunk");
                });
        assertThat(deltas).as("what arrived before the cut was told").containsExactly("Hel");

        endpoint.enqueue(Answer.cutOffAfter("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel"));
        assertThatThrownBy(() -> client(null).complete(new ModelCall("gpt-4o",
                List.of(new PromptMessage("user", "go")), List.of(), deltas::add)))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).as(e.getMessage()).isTrue();
                    assertThat(e.getMessage()).contains("unreachable");
                });
    }

    @Test
    void anErrorChunkMidStreamFailsTheCallWithTheEndpointsMessage() {
        endpoint.enqueue(Answer.events("data: {\"error\":{\"message\":\"model overloaded\",\"code\":503}}\n\n"));
        assertThatThrownBy(() -> client(null).complete(new ModelCall("gpt-4o",
                List.of(new PromptMessage("user", "go")), List.of(), delta -> { })))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("model overloaded");
                });
        endpoint.enqueue(Answer.events("data: {not json\n\n"));
        assertThatThrownBy(() -> client(null).complete(new ModelCall("gpt-4o",
                List.of(new PromptMessage("user", "go")), List.of(), delta -> { })))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isFalse();
                    assertThat(e.getMessage()).contains("not JSON", "{not json");
                });
    }

    @Test
    void aModelOverrideIsSentAndNamedAsTheAnsweringModel() throws Exception {
        endpoint.enqueue(Answer.json("{\"choices\":[{\"message\":{\"content\":\"ok\"}}]}"));

        ModelClient.Completion completion = client("llama3.1").complete("gpt-4o", List.of());

        assertThat(sent().path("model").asText()).isEqualTo("llama3.1");
        assertThat(completion.model()).isEqualTo("llama3.1");
        assertThat(completion.promptTokens()).isNull();
    }

    @Test
    void failuresAreRetriableExactlyWhenTheSameCallMaySucceedLaterWithTheEndpointsOwnWords() {
        endpoint.enqueue(Answer.status(429, "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\"}}",
                Map.of("Retry-After", "7")));
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("HTTP 429", "Rate limit reached");
                    assertThat(e.retryAfter()).contains(Duration.ofSeconds(7));
                });
        for (int status : new int[]{408, 500, 502, 503}) {
            endpoint.enqueue(Answer.status(status, "busy", Map.of()));
            assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                    .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> assertThat(e.retriable())
                            .as("HTTP " + status).isTrue());
        }
        for (int status : new int[]{400, 401, 404, 422}) {
            endpoint.enqueue(Answer.status(status, "{\"error\":{\"message\":\"bad request " + status + "\"}}",
                    Map.of()));
            assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                    .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                        assertThat(e.retriable()).as("HTTP " + status).isFalse();
                        assertThat(e.getMessage()).contains("bad request " + status);
                    });
        }
    }

    @Test
    void anAnswerWithNeitherContentNorToolCallsIsAClearError() {
        endpoint.enqueue(Answer.json("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null}}]}"));
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOf(ModelClient.ModelException.class)
                .hasMessageContaining("neither message content nor tool calls");
        endpoint.enqueue(Answer.json("{\"choices\":[]}"));
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOf(ModelClient.ModelException.class).hasMessageContaining("no message");
    }

    @Test
    void anAnswerOverTheBoundIsRefusedWithoutHoldingIt() {
        endpoint.enqueue(Answer.json("{\"choices\":[{\"message\":{\"content\":\""
                + "y".repeat(ModelHttp.MAX_ANSWER_BYTES) + "\"}}]}"));
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isFalse();
                    assertThat(e.getMessage()).contains("more than " + ModelHttp.MAX_ANSWER_BYTES + " bytes");
                });
    }

    @Test
    void anUnreachableEndpointIsRetriable() {
        endpoint.close();
        assertThatThrownBy(() -> client(null).complete("gpt-4o", List.of()))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("unreachable");
                });
    }
}
