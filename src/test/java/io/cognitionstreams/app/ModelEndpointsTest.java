package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

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
}
