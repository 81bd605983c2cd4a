package io.cognitionstreams.app;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.cognitionstreams.model.AnthropicChatModel;
import io.cognitionstreams.model.OpenAiChatModel;
import io.cognitionstreams.model.ResilientModel;
import io.cognitionstreams.prompt.ModelClient;

/**
 * The model endpoints this instance calls, one {@link ResilientModel} each, shared by everything that calls the
 * same endpoint (the model worker, the council's role workers): the limit of calls at once, the backoff and the
 * circuit breaker are the endpoint's, not one caller's. All speak the API of {@code --model-api}, with the key of
 * {@code --model-api-key-env}, the timeout of {@code --model-timeout} and the limit of {@code --model-concurrency}.
 * The clients send each call's own model name: a caller that wants another wraps its calls
 * ({@link #answeringAs}).
 */
public final class ModelEndpoints implements AutoCloseable {

    private final Settings.ModelSettings model;
    private final ResilientModel.Policy policy;
    private final Map<String, ResilientModel> clients = new LinkedHashMap<>();

    public ModelEndpoints(Settings.ModelSettings model) {
        this(model, ResilientModel.Policy.of(model.concurrency()));
    }

    ModelEndpoints(Settings.ModelSettings model, ResilientModel.Policy policy) {
        this.model = model;
        this.policy = policy;
    }

    /** The shared client of the endpoint at this base URL. */
    synchronized ResilientModel at(String baseUrl) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        return clients.computeIfAbsent(base, url -> new ResilientModel(url, api(model, url, null), policy));
    }

    /**
     * The shared client of the endpoint at this base URL, for a caller with a deadline and a fallback of its own (the
     * compression tiers, which fall back to the extractive summary): its calls count against the endpoint's limit and
     * breaker like every other caller's, but while the breaker is open they fail at once instead of waiting for the
     * endpoint to return, so an outage does not hold a stream thread for the chain's whole deadline on every packet.
     */
    synchronized ModelClient unlessDown(String baseUrl) {
        ResilientModel shared = at(baseUrl);
        return call -> shared.state() == ResilientModel.State.OPEN
                ? CompletableFuture.failedFuture(new ModelClient.ModelException("model endpoint " + baseUrl + " is down ("
                        + shared.condition() + "): not waiting for it", true, null))
                : shared.call(call);
    }

    /**
     * A plain client of the endpoint at {@code url} in the API, key and timeout of {@code model}, without retries.
     * @param name the model name sent instead of each call's own; null sends each call's
     */
    private static ModelClient api(Settings.ModelSettings model, String url, String name) {
        return switch (model.provider().api()) {
            case OPENAI -> new OpenAiChatModel(url, model.apiKey().orElse(null), name, model.timeout());
            case ANTHROPIC -> new AnthropicChatModel(url, model.apiKey().orElse(null), name, model.timeout(),
                    model.provider().maxTokens());
        };
    }

    /** Every call of {@code client} with the model name {@code name} (--model-name), whatever its caller named. */
    static ModelClient answeringAs(ModelClient client, String name) {
        return call -> client.call(new ModelClient.ModelCall(name, call.prompt(), call.tools(), call.deltas()));
    }

    /** Stops every endpoint's retries: after the workers and the capabilities that call them have stopped. */
    @Override
    public synchronized void close() {
        clients.values().forEach(ResilientModel::close);
        clients.clear();
    }
}
