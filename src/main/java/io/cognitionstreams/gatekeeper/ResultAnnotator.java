package io.cognitionstreams.gatekeeper;

import java.util.Objects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Puts a cognitive load warning where the model will read it: inside the tool result it was waiting for.
 * <ul>
 *   <li>Text: the warning goes at the end, after one blank line. The original text stays a prefix.</li>
 *   <li>JSON object with a string {@code message}: appended to that message the same way.</li>
 *   <li>Any other JSON object: {@code "_cognition": {"warning": ...}}, merged into an existing {@code _cognition}
 *       object.</li>
 *   <li>Anything else (an array, a number, a string, null, {@code _cognition} already used for something that is not
 *       an object, or text that is not JSON): left untouched, with {@code injected=false}. Wrapping it would change
 *       the shape the caller parses, so the warning goes in the result's separate warning field instead
 *       ({@code ToolResult.cognitive_load_warning}).</li>
 * </ul>
 * JSON is reparsed and written compactly: whitespace changes, values do not (decimals are read as BigDecimal and
 * keep their digits). A duplicate key makes the JSON count as not an object: which value would survive is unclear.
 */
public final class ResultAnnotator {

    private static final String MESSAGE = "message";
    private static final String COGNITION = "_cognition";
    private static final String WARNING = "warning";

    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private ResultAnnotator() {
    }

    /** A JSON result after annotation: the new JSON if {@code injected}, else the original, untouched. */
    public record JsonAnnotation(String json, boolean injected) {
    }

    public static String annotateText(String text, String warning) {
        requireWarning(warning);
        if (text.isEmpty()) {
            return warning;
        }
        String separator = text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
        return text + separator + warning;
    }

    public static JsonAnnotation annotateJson(String json, String warning) {
        requireWarning(warning);
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            return new JsonAnnotation(json, false);
        }
        if (!(root instanceof ObjectNode object)) {
            return new JsonAnnotation(json, false);
        }
        JsonNode message = object.get(MESSAGE);
        JsonNode cognition = object.get(COGNITION);
        if (message != null && message.isTextual()) {
            object.put(MESSAGE, annotateText(message.textValue(), warning));
        } else if (cognition == null) {
            object.putObject(COGNITION).put(WARNING, warning);
        } else if (cognition instanceof ObjectNode existing) {
            existing.put(WARNING, warning);
        } else {
            return new JsonAnnotation(json, false);
        }
        try {
            return new JsonAnnotation(JSON.writeValueAsString(object), true);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed JSON tree could not be written back", e);
        }
    }

    private static void requireWarning(String warning) {
        if (Objects.requireNonNull(warning, "warning").isBlank()) {
            throw new IllegalArgumentException("warning is blank");
        }
    }
}
