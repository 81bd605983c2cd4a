package io.cognitionstreams.tokens;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;

/**
 * Maps a target model to the tokenizer it really uses, so budgets are counted in the model's own tokens.
 * Rules are matched by model-name prefix, longest first; models no rule names use the configured default.
 * The lazy registry loads an encoding's vocabulary only when first asked for (each costs tens of MB and about a
 * second), once per JVM: an encoding is immutable, so every instance shares it.
 */
public final class Tokenizers {

    /** Prefix rules, most specific first. Kept in step with OpenAI's published model families. */
    private static final List<Map.Entry<String, EncodingType>> RULES = List.of(
            Map.entry("gpt-4o", EncodingType.O200K_BASE),
            Map.entry("gpt-4.1", EncodingType.O200K_BASE),
            Map.entry("gpt-4.5", EncodingType.O200K_BASE),
            Map.entry("gpt-5", EncodingType.O200K_BASE),
            Map.entry("chatgpt-4o", EncodingType.O200K_BASE),
            Map.entry("o1", EncodingType.O200K_BASE),
            Map.entry("o3", EncodingType.O200K_BASE),
            Map.entry("o4", EncodingType.O200K_BASE),
            Map.entry("gpt-4", EncodingType.CL100K_BASE),
            Map.entry("gpt-3.5", EncodingType.CL100K_BASE),
            Map.entry("text-embedding-3", EncodingType.CL100K_BASE),
            Map.entry("text-embedding-ada-002", EncodingType.CL100K_BASE),
            Map.entry("text-davinci-003", EncodingType.P50K_BASE),
            Map.entry("text-davinci-002", EncodingType.P50K_BASE),
            Map.entry("code-davinci", EncodingType.P50K_BASE),
            Map.entry("davinci", EncodingType.R50K_BASE));

    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();
    private final EncodingType fallback;
    private final Map<String, TokenCounter> byModel = new ConcurrentHashMap<>();
    private final Map<String, TokenCounter> byEncoding = new ConcurrentHashMap<>();

    public Tokenizers(EncodingType fallback) {
        this.fallback = fallback;
    }

    /** Default for unknown models: o200k_base, the encoding of current OpenAI models. */
    public Tokenizers() {
        this(EncodingType.O200K_BASE);
    }

    /**
     * Loads every encoding on a thread of its own, so that it is done or under way when the app first counts (the
     * packet assembler's instructions are counted in all of them): `run` starts it before its broker, whose start
     * takes seconds anyway. A caller that needs an encoding still loading waits for that load, not for a second one.
     */
    public static void loadAllInBackground() {
        Thread loading = new Thread(() -> {
            for (EncodingType type : EncodingType.values()) {
                REGISTRY.getEncoding(type);
            }
        }, "tokenizers-load");
        loading.setDaemon(true);
        loading.start();
    }

    public static EncodingType encodingFor(String model, EncodingType fallback) {
        String name = model == null ? "" : model.toLowerCase(Locale.ROOT).trim();
        int slash = name.lastIndexOf('/');
        String bare = slash >= 0 ? name.substring(slash + 1) : name;
        for (Map.Entry<String, EncodingType> rule : RULES) {
            if (bare.startsWith(rule.getKey())) {
                return rule.getValue();
            }
        }
        return fallback;
    }

    public TokenCounter forModel(String model) {
        return byModel.computeIfAbsent(model == null ? "" : model,
                m -> forEncoding(encodingFor(m, fallback)));
    }

    /** By encoding name as packets record it (o200k_base, cl100k_base, ...); unknown names use the fallback. */
    public TokenCounter forEncodingName(String name) {
        return byEncoding.computeIfAbsent(name,
                n -> forEncoding(EncodingType.fromName(n).orElse(fallback)));
    }

    public TokenCounter forEncoding(EncodingType type) {
        Encoding encoding = REGISTRY.getEncoding(type);
        return new TokenCounter(encoding);
    }
}
