package io.cognitionstreams.assembly.compression;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What counts as a rule in an identity, persona or skill protocol, and whether a rewrite kept every rule. A rule is
 * kept word for word by compression or the field is refused: these texts exist to keep a model on its rules.
 *
 * <p>A unit of text (a list item, a line, or one sentence of a prose paragraph) is a rule when it
 * <ul>
 *   <li>is a numbered item ({@code 1. ...}, {@code 2) ...});</li>
 *   <li>is a marker or key-value line: {@code RULES:}, {@code tone: warm}, {@code max_retries = 2},
 *       {@code "name": "gaia"}, or a short label ending in a colon ({@code Core rules:});</li>
 *   <li>holds a modal word anywhere: must, never, always, shall, should, do not, don't, may not, only, require(s,
 *       d), forbidden, prohibited, not allowed, not permitted, at all costs, under no circumstances;</li>
 *   <li>opens with an imperative verb ({@code Use ...}, {@code Ask before ...}, {@code Please cite ...}) or a
 *       prohibition ({@code No profanity}), or states who the model is ({@code You are ...},
 *       {@code Your name is ...});</li>
 *   <li>is a list item under a label line ({@code Constraints:} then {@code - ...}): the label's value.</li>
 * </ul>
 * JSON blocks and fenced code blocks of JSON or YAML are structure, rules as a whole ({@link Sentences}).
 */
final class Rules {

    private static final Pattern NUMBERED = Pattern.compile("^\\d{1,3}[.)]\\s+\\S");

    /** {@code KEY:} at line start in capitals: a section marker such as RULES: or PLAN:. */
    private static final Pattern MARKER = Pattern.compile("^[A-Z][A-Z0-9_]+(?:[ -][A-Z0-9_]+)*:");

    /** A key of up to three words (or a quoted key), then {@code : value}, {@code = value} or a bare colon. */
    private static final Pattern KEY_VALUE = Pattern.compile(
            "^(?:\"[^\"]{1,60}\"|[A-Za-z_][\\w.-]*(?: [\\w.-]+){0,2})\\s*(?::(?:\\s+\\S.*)?|\\s*=\\s*\\S.*)$");

    private static final Pattern MODAL = Pattern.compile("\\b(?:must|mustn't|never|always|shall|shan't|should"
            + "|shouldn't|do not|don't|may not|only|require|requires|required|forbidden|prohibited|not allowed"
            + "|not permitted|at all costs|under no circumstances)\\b", Pattern.CASE_INSENSITIVE);

    private static final Pattern WHO = Pattern.compile("^(?:<role>)?(?:you are|you're|your name is)\\b",
            Pattern.CASE_INSENSITIVE);

    /** Verbs a protocol opens its instructions with. A false positive only keeps a sentence too many. */
    private static final Set<String> IMPERATIVES = Set.of(
            "accept", "add", "answer", "apply", "ask", "avoid", "block", "call", "check", "choose", "cite",
            "clarify", "close", "commit", "compare", "confirm", "consider", "copy", "create", "decline", "delete",
            "deny", "describe", "disclose", "document", "do", "escalate", "ensure", "explain", "flag", "follow",
            "format", "give", "greet", "ignore", "include", "inform", "keep", "label", "limit", "list", "log",
            "make", "mark", "mention", "no", "notify", "obey", "offer", "pause", "plan", "please", "post", "prefer",
            "prioritize", "prioritise", "protect", "provide", "put", "quote", "read", "record", "redact", "refer",
            "refuse", "reject", "remember", "remove", "reply", "report", "request", "respect", "respond",
            "restate", "retry", "return", "review", "run", "say", "send", "set", "share", "show", "sign", "skip",
            "start", "state", "stay", "stop", "store", "summarize", "summarise", "suggest", "tag", "take", "tell",
            "test", "treat", "update", "use", "validate", "verify", "wait", "warn", "write");

    private static final Pattern LIST_MARKER = Pattern.compile("^(?:[-*+•▪‣◦]|\\d{1,3}[.)]|[a-zA-Z][.)])\\s+");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+");
    private static final Pattern FIRST_WORD = Pattern.compile("^[\"'“‘(]*([A-Za-z]+(?:'[a-z]+)?)");

    private Rules() {
    }

    /** Whether one unit of text (a line, an item or a sentence, stripped) is a rule. */
    static boolean isRule(String unit) {
        if (isStructure(unit)) {
            return true;
        }
        String body = body(unit);
        if (MODAL.matcher(body).find() || WHO.matcher(body).find()) {
            return true;
        }
        var first = FIRST_WORD.matcher(body);
        return first.find() && IMPERATIVES.contains(first.group(1).toLowerCase(Locale.ROOT));
    }

    /** A label that opens a list, its value: {@code Constraints:}, {@code RULES:}. */
    static boolean isLabel(String line) {
        return line.endsWith(":") && isStructure(line);
    }

    /** A numbered item, a marker or a key-value line: a rule as a whole line, never split into sentences. */
    static boolean isStructure(String line) {
        if (NUMBERED.matcher(line).find()) {
            return true;
        }
        String body = body(line);
        return MARKER.matcher(body).find() || KEY_VALUE.matcher(body).matches();
    }

    /** Without a leading list marker or Markdown heading marks. */
    private static String body(String unit) {
        return HEADING.matcher(LIST_MARKER.matcher(unit).replaceFirst("")).replaceFirst("");
    }

    /**
     * The rules {@code rewrite} lost. A rule is kept when its words and punctuation appear in the rewrite in order,
     * ignoring whitespace (line breaks, indentation, JSON reformatted compactly), a leading list marker and trailing
     * {@code . , ;}: that much a model may change; a reworded rule is a lost one.
     */
    static List<String> missing(List<String> rules, String rewrite) {
        String text = withoutWhitespace(rewrite);
        List<String> missing = new ArrayList<>();
        for (String rule : rules) {
            if (!text.contains(comparable(rule))) {
                missing.add(rule);
            }
        }
        return missing;
    }

    static String comparable(String rule) {
        String bare = withoutWhitespace(LIST_MARKER.matcher(rule.strip()).replaceFirst(""));
        int end = bare.length();
        while (end > 0 && ".,;".indexOf(bare.charAt(end - 1)) >= 0) {
            end--;
        }
        return bare.substring(0, end);
    }

    private static String withoutWhitespace(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().filter(c -> !Character.isWhitespace(c)).forEach(out::appendCodePoint);
        return out.toString();
    }
}
