package io.cognitionstreams.assembly;

import java.util.Map;

/** Built-in personas (seed 002's SystemPersonaProvider). Tone guidance only: a persona never overrides identity. */
public final class Personas {

    public static final String DEFAULT = "assistant";

    private static final Map<String, String> BUILT_IN = Map.of(
            "architect", "<role>You are a master software architect.</role>",
            "developer", "<role>You are an expert developer.</role>",
            "researcher", "<role>You are a thorough researcher.</role>",
            DEFAULT, "<role>You are a careful, helpful assistant.</role>");

    private Personas() {
    }

    /** The persona text for a key; unknown or missing keys fall back to the default persona. */
    public static String text(String key) {
        return BUILT_IN.getOrDefault(key == null ? DEFAULT : key, BUILT_IN.get(DEFAULT));
    }
}
