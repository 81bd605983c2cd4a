package io.cognitionstreams.assembly.compression;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits text into the units the extractive summarizer keeps or drops, and marks the rules among them
 * ({@link Rules}). Lines are hard boundaries. A list item, a numbered item, a marker or key-value line stays whole
 * (its parts mean little apart); so does a JSON block or a fenced code block, over as many lines as it spans. Any
 * other line is a prose paragraph, split into sentences, each a rule or not on its own: a paragraph with one
 * "must" in it does not pin all its other sentences.
 *
 * <p>A rule repeated word for word is one rule: its later copies are ordinary units, which the summarizer's
 * redundancy penalty passes over.
 */
final class Sentences {

    /**
     * One unit of the text; {@code line} is the index of the line it starts on, so output keeps the line breaks
     * between units from different lines. A block unit holds its lines joined with line breaks, as written.
     */
    record Unit(String text, int line, boolean rule) {
    }

    private static final Pattern BULLET = Pattern.compile("^(?:[-*+•▪‣◦]|\\d{1,3}[.)]|[a-zA-Z][.)])\\s+");

    private static final Pattern FENCE = Pattern.compile("^(```|~~~)\\s*([\\w+-]*)");
    private static final Set<String> STRUCTURED = Set.of("json", "jsonc", "json5", "yaml", "yml");

    /** A line that opens a JSON object or array: a brace, or a bracket followed by what a JSON value starts with. */
    private static final Pattern JSON_START = Pattern.compile("^(?:\\{\\s*(?:$|[\"}])|\\[\\s*(?:$|[\"{\\[\\]\\d-]))");
    /** A JSON block longer than this is not taken for one: a stray bracket must not swallow the text. */
    private static final int MAX_BLOCK_LINES = 200;

    /** Sentence-ending punctuation, closing quotes or brackets, then the whitespace before the next sentence. */
    private static final Pattern END = Pattern.compile("[.!?]+[\"'”’)\\]]*\\s+");

    /** Words that end in a period without ending the sentence (lower case, without their last period). */
    private static final Set<String> ABBREVIATIONS = Set.of(
            "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "e.g", "i.e", "cf", "al", "approx", "fig",
            "inc", "ltd", "corp", "dept", "u.s", "u.k", "a.m", "p.m");

    private Sentences() {
    }

    static List<Unit> split(String text) {
        String[] lines = text.split("\\R", -1);
        List<Unit> units = new ArrayList<>();
        Set<String> rules = new HashSet<>();
        boolean underLabel = false;
        int i = 0;
        while (i < lines.length) {
            String trimmed = lines[i].strip();
            if (trimmed.isEmpty()) {
                i++;
                continue;
            }
            boolean bullet = BULLET.matcher(trimmed).find();
            boolean listed = underLabel && bullet;
            underLabel = listed || Rules.isLabel(trimmed);
            int end = blockEnd(lines, i);
            if (end > i || JSON_START.matcher(trimmed).find() && end == i) {
                String block = joined(lines, i, end);
                units.add(new Unit(block, i, structured(lines[i].strip()) && rules.add(block)));
                i = end + 1;
                continue;
            }
            if (bullet || Rules.isStructure(trimmed)) {
                units.add(new Unit(trimmed, i, (listed || Rules.isRule(trimmed)) && rules.add(trimmed)));
            } else {
                for (String sentence : sentencesOf(trimmed)) {
                    units.add(new Unit(sentence, i, Rules.isRule(sentence) && rules.add(sentence)));
                }
            }
            i++;
        }
        return units;
    }

    /** The rules of {@code text}, in order, each once. */
    static List<String> rules(String text) {
        return split(text).stream().filter(Unit::rule).map(Unit::text).toList();
    }

    /**
     * The last line of a block opening at {@code start}: a fenced code block (to its closing fence, or the end) or a
     * JSON block (to the line where its brackets balance). {@code start} itself when no block opens there, or for a
     * JSON value on one line.
     */
    private static int blockEnd(String[] lines, int start) {
        String first = lines[start].strip();
        Matcher fence = FENCE.matcher(first);
        if (fence.find()) {
            for (int i = start + 1; i < lines.length; i++) {
                if (lines[i].strip().startsWith(fence.group(1))) {
                    return i;
                }
            }
            return lines.length - 1;
        }
        if (!JSON_START.matcher(first).find()) {
            return start;
        }
        int depth = 0;
        boolean inString = false;
        for (int i = start; i < lines.length && i < start + MAX_BLOCK_LINES; i++) {
            String line = lines[i];
            for (int c = 0; c < line.length(); c++) {
                char ch = line.charAt(c);
                if (inString) {
                    if (ch == '\\') {
                        c++;
                    } else if (ch == '"') {
                        inString = false;
                    }
                } else if (ch == '"') {
                    inString = true;
                } else if (ch == '{' || ch == '[') {
                    depth++;
                } else if (ch == '}' || ch == ']') {
                    depth--;
                }
            }
            if (depth <= 0) {
                return i;
            }
        }
        // Never closed: not a JSON block after all; its first line is read as an ordinary line.
        return -1;
    }

    /** A JSON block, or a fenced block of JSON or YAML: structure, kept whole; other code is not a rule. */
    private static boolean structured(String firstLine) {
        Matcher fence = FENCE.matcher(firstLine);
        return !fence.find() || STRUCTURED.contains(fence.group(2).toLowerCase(Locale.ROOT));
    }

    private static String joined(String[] lines, int from, int to) {
        StringBuilder block = new StringBuilder();
        for (int i = from; i <= to; i++) {
            block.append(i == from ? "" : "\n").append(lines[i].stripTrailing());
        }
        return block.toString().strip();
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
        // A lone capital ("J. Doe") is an initial; the rest are known abbreviations.
        return !(word.length() == 1 && Character.isLetter(word.charAt(0))) && !ABBREVIATIONS.contains(word);
    }
}
