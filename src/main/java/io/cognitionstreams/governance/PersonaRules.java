package io.cognitionstreams.governance;

import java.util.Optional;
import java.util.regex.Pattern;

import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.topology.GlobalMirror;

/**
 * What a persona on cognition.personas must be to reach prompts. Depends on the record alone, so the assembly's
 * mirror that skips a persona, the governance guard that dead-letters it and `cognition persona load`, which refuses
 * it before writing, agree. A tombstone deletes a persona; the default persona then falls back to its built-in text.
 */
public final class PersonaRules {

    /** As skill names: what a request's persona field can name without quoting. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public static final GlobalMirror.Check<Persona> CHECK = PersonaRules::refuse;

    private PersonaRules() {
    }

    /** Why a persona record may not be used, if it may not. */
    public static Optional<String> refuse(String key, Persona persona) {
        if (!key.equals(persona.getName())) {
            return Optional.of("the record keyed " + key + " names persona " + persona.getName());
        }
        if (!NAME.matcher(persona.getName()).matches()) {
            return Optional.of("persona name '" + persona.getName() + "' must be 1-64 letters, digits, '_' or '-'");
        }
        if (persona.getRole().isBlank()) {
            return Optional.of("persona " + persona.getName() + " has no role: say who the model plays");
        }
        if (persona.getConstraints().stream().anyMatch(String::isBlank)) {
            return Optional.of("persona " + persona.getName() + " has a blank constraint");
        }
        return Optional.empty();
    }
}
