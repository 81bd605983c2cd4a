package io.cognitionstreams.redaction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Parses the redactor's line format. Not java.util.Properties: backslashes are literal, so a regex is written
 * exactly as Pattern.compile takes it.
 * <pre>
 * # comment
 * policy.defaults = on | off        keep the built-in rules (default on)
 * policy.&lt;name&gt; = &lt;regex&gt;           one more rule, in file order after the built-in ones
 * profanity = word, word, ...       replaces the built-in list; empty turns the filter off
 * </pre>
 */
final class RedactorConfig {

    private static final String POLICY_PREFIX = "policy.";
    private static final String POLICY_DEFAULTS = "policy.defaults";
    private static final String PROFANITY = "profanity";

    private RedactorConfig() {
    }

    static Redactor parse(String config) {
        boolean policyDefaults = true;
        List<PolicyRule> rules = new ArrayList<>();
        ProfanityFilter profanity = ProfanityFilter.defaults();
        Set<String> seen = new HashSet<>();
        String[] lines = config.split("\r\n|\r|\n", -1);
        for (int l = 0; l < lines.length; l++) {
            String line = lines[l].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw error(l, "expected key = value, got: " + line);
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (!seen.add(key)) {
                throw error(l, key + " is set twice");
            }
            try {
                if (key.equals(POLICY_DEFAULTS)) {
                    policyDefaults = onOff(value);
                } else if (key.startsWith(POLICY_PREFIX)) {
                    if (value.isEmpty()) {
                        throw new IllegalArgumentException(key + " has an empty regex");
                    }
                    rules.add(PolicyRule.of(key.substring(POLICY_PREFIX.length()), value));
                } else if (key.equals(PROFANITY)) {
                    List<String> words = value.isEmpty()
                            ? List.of()
                            : Arrays.stream(value.split(",", -1)).map(String::strip).toList();
                    profanity = new ProfanityFilter(words);
                } else {
                    throw new IllegalArgumentException("unknown key " + key + "; keys are " + POLICY_DEFAULTS + ", "
                            + POLICY_PREFIX + "<name> and " + PROFANITY);
                }
            } catch (IllegalArgumentException e) {
                throw error(l, e.getMessage(), e);
            }
        }
        List<PolicyRule> all = new ArrayList<>();
        if (policyDefaults) {
            all.addAll(ContentPolicy.defaults().rules());
            for (PolicyRule rule : rules) {
                if (all.stream().anyMatch(builtIn -> builtIn.name().equals(rule.name()))) {
                    throw new IllegalArgumentException("redaction config: policy." + rule.name()
                            + " clashes with a built-in rule; set policy.defaults = off to replace the built-in rules");
                }
            }
        }
        all.addAll(rules);
        return new Redactor(new ContentPolicy(all), profanity);
    }

    private static boolean onOff(String value) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(POLICY_DEFAULTS + " must be on or off, got: " + value);
        };
    }

    private static IllegalArgumentException error(int line, String message) {
        return new IllegalArgumentException("redaction config line " + (line + 1) + ": " + message);
    }

    private static IllegalArgumentException error(int line, String message, Throwable cause) {
        IllegalArgumentException error = error(line, message);
        error.initCause(cause);
        return error;
    }
}
