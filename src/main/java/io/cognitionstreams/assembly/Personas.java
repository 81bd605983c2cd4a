package io.cognitionstreams.assembly;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.cognitionstreams.schema.Persona;

/**
 * The built-in personas (seed 002's SystemPersonaProvider), and how a persona is rendered into the packet. Tone
 * guidance only: a persona never overrides identity, which the system prompt states after it.
 *
 * <p>The built-ins are shipped as defaults: `cognition run` publishes each to cognition.personas when the topic does
 * not hold that name yet, so an operator's own version of one survives restarts. The default persona, which a
 * request without a persona gets, falls back to its built-in text when the topic has none.
 */
public final class Personas {

    public static final String DEFAULT = "assistant";
    private static final String BUILT_IN_SOURCE = "built-in";

    private static final Map<String, String> ROLES = Map.of(
            "architect", "You are a master software architect.",
            "developer", "You are an expert developer.",
            "researcher", "You are a thorough researcher.",
            DEFAULT, "You are a careful, helpful assistant.");

    private Personas() {
    }

    /** The four built-ins by name, in name order, stamped {@code at}. */
    public static Map<String, Persona> builtIns(Instant at) {
        Map<String, Persona> personas = new LinkedHashMap<>();
        ROLES.keySet().stream().sorted().forEach(name -> personas.put(name, builtIn(name, at)));
        return personas;
    }

    /** The built-in default persona, which requests without one get when cognition.personas has none. */
    public static Persona defaultPersona() {
        return builtIn(DEFAULT, Instant.EPOCH);
    }

    private static Persona builtIn(String name, Instant at) {
        return Persona.newBuilder().setName(name).setVersion("1.0.0").setRole(ROLES.get(name))
                .setSource(BUILT_IN_SOURCE).setTimestamp(at).build();
    }

    /**
     * The persona as the model reads it: its role, then what seed 003 section 3.2 gives a persona (tone, style notes,
     * constraints), each on a line of its own, so that compression keeps them as rules. A persona of a role alone
     * renders as seed 002's {@code <role>...</role>}.
     */
    public static String render(Persona persona) {
        StringBuilder text = new StringBuilder("<role>").append(persona.getRole().strip()).append("</role>");
        if (persona.getTone() != null && !persona.getTone().isBlank()) {
            text.append("\nTone: ").append(persona.getTone().strip());
        }
        if (persona.getStyleNotes() != null && !persona.getStyleNotes().isBlank()) {
            text.append("\nStyle notes: ").append(persona.getStyleNotes().strip());
        }
        if (!persona.getConstraints().isEmpty()) {
            text.append("\nConstraints:");
            persona.getConstraints().forEach(constraint -> text.append("\n- ").append(constraint.strip()));
        }
        return text.toString();
    }
}
