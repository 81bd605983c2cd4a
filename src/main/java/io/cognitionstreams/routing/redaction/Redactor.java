package io.cognitionstreams.routing.redaction;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The redaction pipeline every block of model output goes through before a channel topic (seed 003 section 7.3):
 * PII scrub, then content policy, then profanity filter. Each finding becomes a tag {@code [REDACTED:<type>]};
 * later stages never see earlier tags. Every stage reads the text through its {@link NormalizedView}, so invisible
 * characters, fullwidth forms, odd spaces and dashes and look-alike letters hide nothing, while the output keeps the
 * text as it was outside the tags. Immutable and stateless, so one instance serves all stream threads.
 * See docs/redaction.md.
 */
public final class Redactor {

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
        Draft draft = new Draft(Objects.requireNonNull(text, "text"));
        for (Stage stage : stages) {
            draft.run(stage);
        }
        return draft.result();
    }
}
