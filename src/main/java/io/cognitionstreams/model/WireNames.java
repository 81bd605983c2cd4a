package io.cognitionstreams.model;

import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

import io.cognitionstreams.signing.Sha256;

/**
 * Tool names of one call as its API takes them, and back. OpenAI and Anthropic take {@code ^[a-zA-Z0-9_-]{1,64}$};
 * the pipeline names tools {@code shell.run}, {@code git:push}, {@code mcp__files__read_text_file}, of any length.
 * A name the API takes is sent as it is; any other gets its other characters as {@code _}, and, when that is taken
 * by another name or is too long, a hash of the whole name as suffix. Made from the set of names alone, so the
 * same tools get the same names in every call (a provider's prompt cache sees the same prefix). The reverse
 * lookup knows only the names of this call: a name the model was not offered has no pipeline name.
 */
final class WireNames {

    static final int MAX_LENGTH = 64;
    private static final Pattern TAKEN_AS_IS = Pattern.compile("[A-Za-z0-9_-]{1," + MAX_LENGTH + "}");

    private final Map<String, String> toWire = new HashMap<>();
    private final Map<String, String> toPipeline = new HashMap<>();

    private WireNames() {
    }

    /** The names of {@code names}, those the API takes first, so no mapped name can take one of theirs. */
    static WireNames of(Collection<String> names) {
        WireNames map = new WireNames();
        TreeSet<String> sorted = new TreeSet<>(names);
        for (String name : sorted) {
            if (TAKEN_AS_IS.matcher(name).matches()) {
                map.put(name, name);
            }
        }
        for (String name : sorted) {
            if (map.toWire.containsKey(name)) {
                continue;
            }
            String cleaned = name.replaceAll("[^A-Za-z0-9_-]", "_");
            String wire = cleaned.length() <= MAX_LENGTH && !cleaned.isEmpty() ? cleaned : null;
            if (wire == null || map.toPipeline.containsKey(wire)) {
                String hash = hash(name);
                String hashed = cleaned.substring(0, Math.min(cleaned.length(), MAX_LENGTH - hash.length() - 5))
                        + "_" + hash;
                wire = hashed;
                for (int n = 2; map.toPipeline.containsKey(wire); n++) {
                    // Two names with one hash prefix: never seen, but a collision must not lose a tool.
                    wire = hashed + "_" + n;
                }
            }
            map.put(name, wire);
        }
        return map;
    }

    private void put(String name, String wire) {
        toWire.put(name, wire);
        toPipeline.put(wire, name);
    }

    /** The API's name of a tool of this call. */
    String wire(String name) {
        String wire = toWire.get(name);
        if (wire == null) {
            throw new IllegalArgumentException("tool " + name + " is not one of this call's");
        }
        return wire;
    }

    /** The pipeline's name of a tool the model called; empty for a name it was not offered. */
    Optional<String> pipeline(String wire) {
        return Optional.ofNullable(toPipeline.get(wire));
    }

    private static String hash(String name) {
        return HexFormat.of().formatHex(Sha256.of(name), 0, 4);
    }
}
