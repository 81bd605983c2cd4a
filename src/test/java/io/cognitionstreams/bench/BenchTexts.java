package io.cognitionstreams.bench;

import java.util.Random;

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
}
