package io.cognitionstreams.roles;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.cognitionstreams.schema.Vote;

/**
 * A role's vote as its model wrote it: {@code VOTE: yes|no|abstain}, {@code CONFIDENCE: 0..1} and {@code REASON: one
 * line}, each at the start of a line, in any order and case. An answer without a readable VOTE line is an ABSTAIN
 * that says so: the role took part, and nobody is approved or refused by a guess.
 *
 * @param confidence empty when the answer gave none (or one outside 0..1)
 */
public record Ballot(Vote vote, Optional<Double> confidence, String reason) {

    /** A reason is one line, and short: it is quoted in the decision and shown to people. */
    static final int MAX_REASON_CHARS = 500;

    private static final Pattern VOTE = Pattern.compile("(?im)^\\s*\\**vote\\**\\s*:\\s*\\**\\s*(yes|no|abstain)\\b");
    private static final Pattern CONFIDENCE =
            Pattern.compile("(?im)^\\s*\\**confidence\\**\\s*:\\s*([0-9]*\\.?[0-9]+)");
    private static final Pattern REASON = Pattern.compile("(?im)^\\s*\\**reason\\**\\s*:\\s*(.+)$");

    public static Ballot parse(String answer) {
        String text = answer == null ? "" : answer;
        Matcher vote = VOTE.matcher(text);
        if (!vote.find()) {
            return new Ballot(Vote.ABSTAIN, Optional.empty(), oneLine("abstained: the answer could not be read as a "
                    + "vote (no line VOTE: yes|no|abstain): " + (text.isBlank() ? "(empty)" : text)));
        }
        Matcher confidence = CONFIDENCE.matcher(text);
        Optional<Double> level = confidence.find() ? Optional.of(Double.parseDouble(confidence.group(1)))
                .filter(value -> value >= 0.0 && value <= 1.0) : Optional.empty();
        Matcher reason = REASON.matcher(text);
        return new Ballot(Vote.valueOf(vote.group(1).toUpperCase(Locale.ROOT)), level,
                oneLine(reason.find() ? reason.group(1) : "(no reason given)"));
    }

    private static String oneLine(String text) {
        String line = text.strip().replaceAll("\\s+", " ");
        return line.length() <= MAX_REASON_CHARS ? line : line.substring(0, MAX_REASON_CHARS - 1) + "…";
    }
}
