package io.cognitionstreams.redaction;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The second stage: configured regular expressions. Rules see only the text between the tags of the PII scrub.
 * Where matches of two rules overlap, the earlier rule wins.
 */
public final class ContentPolicy {

    /** Host names under the .internal top-level domain (reserved for private use): db-1.prod.internal. */
    public static final PolicyRule INTERNAL_HOST = new PolicyRule("internal-host",
            Pattern.compile("(?<![\\w.-])(?:[A-Za-z0-9-]{1,63}\\.){1,8}internal(?![\\w-]|\\.[A-Za-z0-9])"),
            List.of(".internal"));

    /**
     * A credential assigned in text, as in configs, env files and headers: password=..., DB_PASSWORD: ...,
     * "client_secret": "...", X-Api-Key: .... Only the value is replaced; it ends before a blank, quote, comma,
     * semicolon or ampersand, and a final dot is taken for the end of the sentence.
     */
    public static final PolicyRule CREDENTIAL = new PolicyRule("credential",
            Pattern.compile("(?i)(?<![a-z0-9])"
                    + "(?:pass(?:word|wd|phrase)|pwd|secret|api[_-]?key|(?:access|auth|refresh)[_-]?token)"
                    + "(?:[_.-][a-z0-9]{1,20}){0,3}"
                    + "[\"']?[ \\t]{0,3}[:=][ \\t]{0,3}[\"']?(?<value>[^\\s\"'`,;&]{0,255}[^\\s\"'`,;&.])"),
            List.of("pass", "pwd", "secret", "api", "token"));

    private final List<PolicyRule> rules;
    private final boolean[] valueOnly;
    private final boolean anyTriggers;

    public ContentPolicy(List<PolicyRule> rules) {
        this.rules = List.copyOf(rules);
        this.valueOnly = new boolean[this.rules.size()];
        boolean triggers = false;
        for (int r = 0; r < valueOnly.length; r++) {
            valueOnly[r] = this.rules.get(r).replacesValueOnly();
            triggers |= !this.rules.get(r).triggers().isEmpty();
        }
        this.anyTriggers = triggers;
    }

    public static ContentPolicy defaults() {
        return new ContentPolicy(List.of(INTERNAL_HOST, CREDENTIAL));
    }

    public List<PolicyRule> rules() {
        return rules;
    }

    void scan(String text, List<Hit> out) {
        String lower = anyTriggers ? text.toLowerCase(Locale.ROOT) : text;
        for (int r = 0; r < valueOnly.length; r++) {
            PolicyRule rule = rules.get(r);
            if (!triggered(rule, lower)) {
                continue;
            }
            String type = "POLICY:" + rule.name();
            Matcher matcher = rule.pattern().matcher(text);
            while (matcher.find()) {
                int start = valueOnly[r] ? matcher.start("value") : matcher.start();
                int end = valueOnly[r] ? matcher.end("value") : matcher.end();
                if (start >= 0 && end > start) {
                    out.add(new Hit(start, end, type, r));
                }
            }
        }
    }

    private static boolean triggered(PolicyRule rule, String lower) {
        if (rule.triggers().isEmpty()) {
            return true;
        }
        for (String trigger : rule.triggers()) {
            if (lower.contains(trigger)) {
                return true;
            }
        }
        return false;
    }
}
