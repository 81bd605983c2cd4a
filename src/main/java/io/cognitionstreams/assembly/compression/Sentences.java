package io.cognitionstreams.assembly.compression;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits text into the units the extractive summarizer keeps or drops. Lines are hard boundaries; a bullet line
 * or a directive-like line stays whole (its parts mean little apart), any other line is split into sentences.
 */
final class Sentences {

    /** One unit of the text; {@code startsLine} says whether it opened a line, so output keeps the line breaks. */
    record Unit(String text, boolean startsLine, boolean directive) {
    }

    private static final Pattern BULLET = Pattern.compile("^(?:[-*+•▪‣◦]|\\d{1,3}[.)]|[a-zA-Z][.)])\\s+");

    /** A marker such as {@code RULES:} or {@code PLAN:}, or an imperative that states a rule. */
    private static final Pattern DIRECTIVE = Pattern.compile(
            "^(?:[-*+•▪‣◦]\\s+|\\d{1,3}[.)]\\s+)?(?:[A-Z][A-Z0-9_]+(?:[ -][A-Z0-9_]+)*:"
                    + "|(?i:never|always|must|do not|don't|you must|you should|you will|ensure|avoid|refuse)\\b)");

    /** Sentence-ending punctuation, closing quotes or brackets, then the whitespace before the next sentence. */
    private static final Pattern END = Pattern.compile("[.!?]+[\"'”’)\\]]*\\s+");

    /** Words that end in a period without ending the sentence (lower case, without their last period). */
    private static final Set<String> ABBREVIATIONS = Set.of(
            "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "e.g", "i.e", "cf", "al", "approx", "fig",
            "inc", "ltd", "corp", "dept", "u.s", "u.k", "a.m", "p.m");

    private Sentences() {
    }

    static List<Unit> split(String text) {
        List<Unit> units = new ArrayList<>();
        for (String line : text.split("\\R")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            if (BULLET.matcher(trimmed).find() || DIRECTIVE.matcher(trimmed).find()) {
                units.add(new Unit(trimmed, true, DIRECTIVE.matcher(trimmed).find()));
                continue;
            }
            boolean first = true;
            for (String sentence : sentencesOf(trimmed)) {
                units.add(new Unit(sentence, first, DIRECTIVE.matcher(sentence).find()));
                first = false;
            }
        }
        return units;
    }

    private static List<String> sentencesOf(String line) {
        List<String> sentences = new ArrayList<>();
        Matcher end = END.matcher(line);
        int start = 0;
        while (end.find()) {
            if (end.end() < line.length() && isBoundary(line, start, end)) {
                sentences.add(line.substring(start, end.end()).strip());
                start = end.end();
            }
        }
        sentences.add(line.substring(start).strip());
        return sentences;
    }

    private static boolean isBoundary(String line, int sentenceStart, Matcher end) {
        char next = line.charAt(end.end());
        // A lower-case continuation ("the U.S. market", "approx. ten") is still the same sentence.
        if (!(Character.isUpperCase(next) || Character.isDigit(next) || "\"'“‘([".indexOf(next) >= 0)) {
            return false;
        }
        if (line.charAt(end.start()) != '.' || end.group().startsWith("..")) {
            return true;
        }
        int wordStart = line.lastIndexOf(' ', end.start()) + 1;
        String word = line.substring(Math.max(wordStart, sentenceStart), end.start())
                .replaceFirst("^[\"'“‘(\\[]+", "").toLowerCase(Locale.ROOT);
        // A lone capital ("J. Smith") is an initial; the rest are known abbreviations.
        return !(word.length() == 1 && Character.isLetter(word.charAt(0))) && !ABBREVIATIONS.contains(word);
    }
}
