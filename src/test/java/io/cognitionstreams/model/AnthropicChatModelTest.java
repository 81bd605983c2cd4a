package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

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
 * Against a double of Anthropic's Messages API on loopback, answering with the shapes of its documented examples
 * (a tool_use answer, the streaming event sequence with text_delta and input_json_delta, the error bodies).
 */
class AnthropicChatModelTest {

    private static final List<ToolSpec> TOOLS = List.of(
            new ToolSpec("mcp__weather__get_weather", "Get the current weather in a given location",
                    "{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\"}},"
                            + "\"required\":[\"location\"]}"),
            new ToolSpec("shell.run", "Runs a command", "{\"type\":\"object\"}"));

    private ModelDouble endpoint;

    @BeforeEach
    void start() throws IOException {
        endpoint = new ModelDouble("/v1/messages");
    }

    @AfterEach
    void stop() {
        endpoint.close();
    }

    private AnthropicChatModel client() {
        return new AnthropicChatModel(endpoint.baseUrl(), "sk-ant-test", null, Duration.ofSeconds(5), 1024);
    }

    private JsonNode sent() {
        return endpoint.requests().get(0).body();
    }

    @Test
    void theSystemPromptGoesApartAndCallsAndResultsAreContentBlocks() throws Exception {
        endpoint.enqueue(Answer.json("{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
                + "\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"RESPONSE: sunny\"}],"
                + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":25,"
                + "\"output_tokens\":8}}"));
        List<ChatToolCall> calls = List.of(
                ChatToolCall.newBuilder().setId("toolu_1").setName("mcp__weather__get_weather")
                        .setArguments("{\"location\":\"Paris\"}").build(),
                ChatToolCall.newBuilder().setId("toolu_2").setName("shell.run").setArguments("not json").build());

        ModelClient.Completion completion = client().complete(new ModelCall("claude-sonnet-4-5", List.of(
                new PromptMessage("system", "rules"), new PromptMessage("user", "weather?"),
                new PromptMessage("assistant", "Checking.", null, calls),
                new PromptMessage("tool", "sunny", "toolu_1", List.of()),
                new PromptMessage("tool", "refused", "toolu_2", List.of()),
                new PromptMessage("user", "go on")), TOOLS, null));

        assertThat(completion).isEqualTo(new ModelClient.Completion("RESPONSE: sunny", "claude-sonnet-4-5", 25, 8));
        ModelDouble.Request request = endpoint.requests().get(0);
        assertThat(request.headers().getFirst("x-api-key")).isEqualTo("sk-ant-test");
        assertThat(request.headers().getFirst("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(request.headers().getFirst("Authorization")).isNull();
        assertThat(sent().path("max_tokens").asInt()).isEqualTo(1024);
        assertThat(sent().path("system").asText()).isEqualTo("rules");
        assertThat(sent().path("messages").toString()).isEqualTo("["
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"weather?\"}]},"
                + "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Checking.\"},"
                + "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"mcp__weather__get_weather\","
                + "\"input\":{\"location\":\"Paris\"}},"
                + "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"shell_run\","
                + "\"input\":{\"arguments\":\"not json\"}}]},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\","
                + "\"content\":\"sunny\"},{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\","
                + "\"content\":\"refused\"},{\"type\":\"text\",\"text\":\"go on\"}]}]");
        JsonNode tools = sent().path("tools");
        assertThat(tools.get(0).path("name").asText()).isEqualTo("mcp__weather__get_weather");
        assertThat(tools.get(0).path("input_schema").path("required").get(0).asText()).isEqualTo("location");
        assertThat(tools.get(1).path("name").asText()).isEqualTo("shell_run");
    }

    @Test
    void toolUseBlocksAreTheCallsUnderThePipelinesNames() throws Exception {
        // The documented answer of a model that calls a tool: a text block, then tool_use, stop_reason tool_use.
        endpoint.enqueue(Answer.json("{\"id\":\"msg_01Aq9w938a90dw8q\",\"type\":\"message\",\"role\":\"assistant\","
                + "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"I'll check.\"},"
                + "{\"type\":\"tool_use\",\"id\":\"toolu_01A09q90qw90lq917835lq9\",\"name\":\"mcp__weather__get_weather\","
                + "\"input\":{\"location\":\"San Francisco, CA\"}},"
                + "{\"type\":\"tool_use\",\"id\":\"toolu_02\",\"name\":\"shell_run\",\"input\":{\"command\":\"date\"}}],"
                + "\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":300,\"output_tokens\":60}}"));

        ModelClient.Completion completion = client().complete(new ModelCall("claude-sonnet-4-5",
                List.of(new PromptMessage("user", "weather?")), TOOLS, null));

        assertThat(completion.text()).isEqualTo("I'll check.");
        assertThat(completion.toolCalls()).extracting(ChatToolCall::getId, ChatToolCall::getName,
                ChatToolCall::getArguments).containsExactly(
                tuple("toolu_01A09q90qw90lq917835lq9", "mcp__weather__get_weather",
                        "{\"location\":\"San Francisco, CA\"}"),
                tuple("toolu_02", "shell.run", "{\"command\":\"date\"}"));
        assertThat(completion.promptTokens()).isEqualTo(300);
    }

    @Test
    void aStreamedAnswerIsPutTogetherFromItsEvents() throws Exception {
        // The documented event sequence of a streamed answer with text and a tool call.
        endpoint.enqueue(Answer.events(
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":"
                        + "\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\","
                        + "\"stop_reason\":null,\"usage\":{\"input_tokens\":472,\"output_tokens\":2}}}\n\n",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
                "event: ping\ndata: {\"type\": \"ping\"}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                        + "{\"type\":\"text_delta\",\"text\":\"Okay, let me \"}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                        + "{\"type\":\"text_delta\",\"text\":\"check.\"}}\n\n",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
                        + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\","
                        + "\"name\":\"mcp__weather__get_weather\",\"input\":{}}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
                        + "{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
                        + "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"San Fra\"}}\n\n",
                "data:\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
                        + "{\"type\":\"input_json_delta\",\"partial_json\":\"ncisco, CA\\\"}\"}}\n\n",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
                "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
                        + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n\n",
                "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
        List<String> deltas = new ArrayList<>();

        ModelClient.Completion completion = client().complete(new ModelCall("claude-sonnet-4-5",
                List.of(new PromptMessage("user", "weather?")), TOOLS, deltas::add));

        assertThat(sent().path("stream").asBoolean()).isTrue();
        assertThat(deltas).containsExactly("Okay, let me ", "check.");
        assertThat(completion.text()).isEqualTo("Okay, let me check.");
        assertThat(completion.toolCalls()).extracting(ChatToolCall::getId, ChatToolCall::getName,
                ChatToolCall::getArguments).containsExactly(tuple("toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "mcp__weather__get_weather", "{\"location\": \"San Francisco, CA\"}"));
        assertThat(completion.promptTokens()).isEqualTo(472);
        assertThat(completion.completionTokens()).isEqualTo(89);
    }

    @Test
    void aStreamWithoutMessageStopOrWithAnErrorEventFails() {
        endpoint.enqueue(Answer.events(
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{}}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                        + "{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_blo"));
        assertThatThrownBy(() -> client().complete(new ModelCall("claude-sonnet-4-5",
                List.of(new PromptMessage("user", "hi")), List.of(), delta -> { })))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("before message_stop");
                });
        // The documented error event: overloaded mid-stream, retriable like a 529.
        endpoint.enqueue(Answer.events("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                + "\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"));
        assertThatThrownBy(() -> client().complete(new ModelCall("claude-sonnet-4-5",
                List.of(new PromptMessage("user", "hi")), List.of(), delta -> { })))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("overloaded_error: Overloaded");
                });
        endpoint.enqueue(Answer.events("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                + "\"invalid_request_error\",\"message\":\"bad tool schema\"}}\n\n"));
        assertThatThrownBy(() -> client().complete(new ModelCall("claude-sonnet-4-5",
                List.of(new PromptMessage("user", "hi")), List.of(), delta -> { })))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> assertThat(e.retriable()).isFalse());
    }

    @Test
    void errorBodiesGiveTheirTypeAndMessageAnd529IsRetriable() {
        String overloaded = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"},"
                + "\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}";
        endpoint.enqueue(Answer.status(529, overloaded, Map.of("retry-after", "3")));
        assertThatThrownBy(() -> client().complete("claude-sonnet-4-5", List.of(new PromptMessage("user", "hi"))))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("HTTP 529", "overloaded_error: Overloaded");
                    assertThat(e.retryAfter()).contains(Duration.ofSeconds(3));
                });
        endpoint.enqueue(Answer.status(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                + "\"message\":\"Number of request tokens has exceeded your per-minute rate limit\"}}", Map.of()));
        assertThatThrownBy(() -> client().complete("claude-sonnet-4-5", List.of(new PromptMessage("user", "hi"))))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isTrue();
                    assertThat(e.getMessage()).contains("rate_limit_error: Number of request tokens");
                });
        endpoint.enqueue(Answer.status(401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
                + "\"message\":\"invalid x-api-key\"}}", Map.of()));
        assertThatThrownBy(() -> client().complete("claude-sonnet-4-5", List.of(new PromptMessage("user", "hi"))))
                .isInstanceOfSatisfying(ModelClient.ModelException.class, e -> {
                    assertThat(e.retriable()).isFalse();
                    assertThat(e.getMessage()).contains("authentication_error: invalid x-api-key");
                });
    }

    @Test
    void anAnswerWithoutTextOrCallsIsAClearError() {
        endpoint.enqueue(Answer.json("{\"type\":\"message\",\"content\":[],\"usage\":{}}"));
        assertThatThrownBy(() -> client().complete("claude-sonnet-4-5", List.of(new PromptMessage("user", "hi"))))
                .isInstanceOf(ModelClient.ModelException.class).hasMessageContaining("neither text nor tool calls");
    }
}
