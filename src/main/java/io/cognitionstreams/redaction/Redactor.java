package io.cognitionstreams.redaction;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * The redaction pipeline every block of model output goes through before a channel topic (seed 003 section 7.3):
 * PII scrub, then content policy, then profanity filter. Each finding becomes a tag {@code [REDACTED:<type>]};
 * later stages never see earlier tags. Every stage reads the text through its {@link NormalizedView}, so invisible
 * characters, fullwidth forms, odd spaces and dashes and look-alike letters hide nothing, while the output keeps the
 * text as it was outside the tags. Immutable and stateless, so one instance serves all stream threads.
 * See docs/redaction.md.
 */
public final class Redactor {

    // Secrets only: the secret detectors of the PII scrub, then the built-in credential rule.
    private static final Stage[] SECRET_STAGES = {
            SecretScanner::scan, new ContentPolicy(List.of(ContentPolicy.CREDENTIAL))::scan};

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Stage[] stages;

    public Redactor(ContentPolicy policy, ProfanityFilter profanity) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(profanity, "profanity");
        this.stages = new Stage[] {PiiScrubber::scan, policy::scan, profanity::scan};
    }

    /** The built-in policy rules and word list. */
    public static Redactor defaults() {
        return new Redactor(ContentPolicy.defaults(), ProfanityFilter.defaults());
    }

    /**
     * A redactor from the line format of docs/redaction.md.
     *
     * @throws IllegalArgumentException naming the line, for a malformed line, an unknown or repeated key, a bad
     *                                  regex or a profanity entry that is not one word
     */
    public static Redactor fromConfig(String config) {
        return RedactorConfig.parse(config);
    }

    public static Redactor fromConfig(Path file) throws IOException {
        return fromConfig(Files.readString(file));
    }

    public Redaction redact(String text) {
        return run(stages, text);
    }

    /**
     * Redacts secrets only, for commands and tool-call arguments: private keys, JWTs, passwords in URLs, API keys
     * and values assigned to credential keys ({@code PRIVATE_KEY}, {@code JWT}, {@code URL_PASSWORD},
     * {@code API_KEY}, {@code POLICY:credential}). Addresses, phone numbers and the like stay, since a command
     * needs them ({@code ping 10.0.0.1}), and so do configured rules and the word list. The same normalisation
     * applies as in {@link #redact}.
     */
    public static Redaction secrets(String text) {
        return run(SECRET_STAGES, text);
    }

    /**
     * {@link #secrets} over tool-call arguments, which are usually a JSON object. The whole text is scanned, so a
     * credential's key and value are seen together ({@code "password": "..."}); should a tag have cut into the JSON
     * (a key's escaped line ends), each string value is scanned on its own instead, so the arguments stay JSON.
     */
    public static Redaction secretsInArguments(String arguments) {
        Redaction whole = secrets(arguments);
        if (whole.total() == 0) {
            return whole;
        }
        JsonNode original = parse(arguments);
        if (original == null || parse(whole.text()) != null) {
            return whole;
        }
        Map<String, Integer> counts = new TreeMap<>();
        JsonNode scrubbed = scrubValues(original, counts);
        return new Redaction(scrubbed.toString(), counts);
    }

    private static JsonNode scrubValues(JsonNode node, Map<String, Integer> counts) {
        if (node.isTextual()) {
            Redaction value = secrets(node.textValue());
            value.counts().forEach((type, count) -> counts.merge(type, count, Integer::sum));
            return TextNode.valueOf(value.text());
        }
        if (node.isObject()) {
            ObjectNode copy = JSON.createObjectNode();
            node.fields().forEachRemaining(field -> copy.set(field.getKey(), scrubValues(field.getValue(), counts)));
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JSON.createArrayNode();
            node.forEach(item -> copy.add(scrubValues(item, counts)));
            return copy;
        }
        return node;
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static Redaction run(Stage[] stages, String text) {
        Draft draft = new Draft(Objects.requireNonNull(text, "text"));
        for (Stage stage : stages) {
            draft.run(stage);
        }
        return draft.result();
    }
}
