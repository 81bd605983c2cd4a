package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.model.ResilientModel;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.testing.ModelDouble;
import io.cognitionstreams.testing.ModelDouble.Answer;

class ModelEndpointsTest {

    private static Settings.ModelSettings model(Settings.ModelApi api) {
        return new Settings.ModelSettings(Optional.of("http://127.0.0.1:1/v1"), Optional.empty(), Optional.empty(),
                Duration.ofSeconds(5), 4, new Settings.Provider(api, Settings.Provider.defaults().tools(), 256));
    }

    @Test
    void everyCallerOfOneEndpointSharesItsClientSoTheLimitAndTheBreakerAreTheEndpoints() {
        try (ModelEndpoints endpoints = new ModelEndpoints(model(Settings.ModelApi.OPENAI))) {
            assertThat(endpoints.at("http://models:8000/v1")).isSameAs(endpoints.at("http://models:8000/v1/"))
                    .isNotSameAs(endpoints.at("http://other:8000/v1"));
        }
    }

    @Test
    void theClientsSpeakTheApiOfModelApiAndSendEachCallsModelUnlessTheCallerRenamesIt() throws Exception {
        try (ModelDouble endpoint = new ModelDouble("/v1/messages");
             ModelEndpoints endpoints = new ModelEndpoints(model(Settings.ModelApi.ANTHROPIC))) {
            endpoint.otherwise(request -> Answer.json("{\"content\":[{\"type\":\"text\",\"text\":\"VOTE: yes\"}],"
                    + "\"usage\":{\"input_tokens\":3,\"output_tokens\":2}}"));
            ModelClient shared = endpoints.at(endpoint.baseUrl());
            List<PromptMessage> prompt = List.of(new PromptMessage("user", "hi"));

            assertThat(shared.call(ModelClient.ModelCall.of("claude-role", prompt)).get(5, TimeUnit.SECONDS).text())
                    .isEqualTo("VOTE: yes");
            ModelEndpoints.answeringAs(shared, "served-name").call(ModelClient.ModelCall.of("packet-model", prompt))
                    .get(5, TimeUnit.SECONDS);

            assertThat(endpoint.requests()).extracting(request -> request.body().path("model").asText())
                    .containsExactly("claude-role", "served-name");
            assertThat(endpoint.requests().get(0).body().path("max_tokens").asInt()).isEqualTo(256);
        }
    }
    @Test
    void aCallerWithAFallbackSharesTheEndpointsBreakerButDoesNotWaitWhileItIsOpen() throws Exception {
        // Open after two failures, and for longer than the test lasts.
        ResilientModel.Policy policy = new ResilientModel.Policy(4, Duration.ofMillis(10), Duration.ofMillis(10), 2,
                Duration.ofMinutes(5), Duration.ofMinutes(5));
        try (ModelDouble endpoint = new ModelDouble("/v1/chat/completions");
             ModelEndpoints endpoints = new ModelEndpoints(model(Settings.ModelApi.OPENAI), policy)) {
            endpoint.otherwise(request -> Answer.status(503, "{\"error\":\"overloaded\"}", Map.of()));
            ModelClient compression = endpoints.unlessDown(endpoint.baseUrl());
            List<PromptMessage> prompt = List.of(new PromptMessage("user", "summarise"));

            // Closed breaker: the call goes to the endpoint, and its failures count against the endpoint's breaker.
            CompletableFuture<ModelClient.Completion> waiting =
                    compression.call(ModelClient.ModelCall.of("lite", prompt));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (endpoints.at(endpoint.baseUrl()).state() != ResilientModel.State.OPEN
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(endpoint.requests()).isNotEmpty();
            assertThat(waiting).isNotDone();

            int asked = endpoint.requests().size();
            CompletableFuture<ModelClient.Completion> refused =
                    compression.call(ModelClient.ModelCall.of("lite", prompt));
            assertThat(refused).isCompletedExceptionally();
            assertThat(refused.handle((answer, error) -> error.getMessage()).get())
                    .contains("model endpoint " + endpoint.baseUrl() + " is down").contains("circuit OPEN");
            assertThat(endpoint.requests()).hasSize(asked);
            waiting.cancel(true);
        }
    }
}
