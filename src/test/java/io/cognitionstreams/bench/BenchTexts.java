package io.cognitionstreams.bench;

import java.util.Random;

import io.cognitionstreams.tokens.TokenCounter;

/** Deterministic realistic inputs for the benchmarks. */
final class BenchTexts {

    private static final String[] SENTENCES = {
            "The release branch builds cleanly and every integration test passes on the staging cluster.",
            "We rolled back to the previous checkpoint after the verification step reported a failure.",
            "Consumers read the channel topics with read_committed isolation, so aborted writes never show.",
            "The gatekeeper denied the call because the active skill does not grant shell access.",
            "Please summarize the three papers and compare how each one evaluates its baseline.",
            "Latency at the 99th percentile stayed under two hundred milliseconds at half the peak load.",
            "Identity rules are immutable: no persona may override them during a session.",
            "The council reached quorum with two roles after the third one stopped sending heartbeats."};

    /** Rule lines of the kind a protocol carries: imperatives, MUST/NEVER lines, numbered rules, key-value. */
    private static final String[] RULES = {
            "- Never run a shell command without the operator's approval.",
            "- Always cite the record a figure comes from.",
            "1. Check that the release branch builds before tagging it.",
            "The agent MUST keep private data out of every channel.",
            "max_retries: 2",
            "Ask before deleting anything outside the workspace."};

    private BenchTexts() {
    }

    static String englishProse(int chars) {
        Random random = new Random(42);
        StringBuilder text = new StringBuilder(chars + 128);
        while (text.length() < chars) {
            text.append(SENTENCES[random.nextInt(SENTENCES.length)]).append(random.nextInt(8) == 0 ? "\n\n" : " ");
        }
        return text.toString();
    }

    /**
     * A protocol of about {@code tokens} tokens of {@code counter}: paragraphs of prose with one rule line after
     * every few sentences, whole lines only, so about a tenth of it is rules.
     */
    static String protocol(int tokens, TokenCounter counter) {
        Random random = new Random(42);
        StringBuilder text = new StringBuilder();
        int line = 0;
        while (true) {
            String next = line % 6 == 5 ? RULES[random.nextInt(RULES.length)]
                    : SENTENCES[random.nextInt(SENTENCES.length)] + " " + SENTENCES[random.nextInt(SENTENCES.length)];
            String candidate = text.length() == 0 ? next : text + "\n" + next;
            if (counter.count(candidate) > tokens) {
                return text.toString();
            }
            text.setLength(0);
            text.append(candidate);
            line++;
        }
    }
}
