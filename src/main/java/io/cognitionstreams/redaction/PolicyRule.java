package io.cognitionstreams.redaction;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A content-policy rule: every match of {@code pattern} becomes {@code [REDACTED:POLICY:<name>]}. When the pattern
 * has a group named {@code value}, only that group is replaced, so "password: hunter2" keeps its "password: ".
 * <p>
 * {@code triggers} is a prefilter: when it is not empty the regex only runs on text that contains one of these
 * literals, ignoring case, so every match must contain one. Without triggers the regex scans every text.
 */
public record PolicyRule(String name, Pattern pattern, List<String> triggers) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

    public PolicyRule {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(pattern, "pattern");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("policy rule name '" + name + "' is not letters, digits, _ and -");
        }
        triggers = triggers.stream().map(trigger -> trigger.toLowerCase(Locale.ROOT)).toList();
        if (triggers.contains("")) {
            throw new IllegalArgumentException("policy rule '" + name + "' has an empty trigger");
        }
    }

    public PolicyRule(String name, Pattern pattern) {
        this(name, pattern, List.of());
    }

    /** The rule compiled from {@code regex}; a bad regex fails with the rule's name in the message. */
    public static PolicyRule of(String name, String regex) {
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("policy rule '" + name + "' has a bad regex: " + e.getDescription()
                    + " near index " + e.getIndex() + " of " + regex, e);
        }
        return new PolicyRule(name, pattern);
    }

    boolean replacesValueOnly() {
        return pattern.pattern().contains("(?<value>");
    }
}
