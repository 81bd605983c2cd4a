package io.cognitionstreams.redaction;

import java.util.List;

/**
 * The first stage: every {@link PiiType} detector over the text. Detectors report independently and overlaps
 * are settled afterwards by {@link PiiType} order, so no detector has to know about another.
 */
final class PiiScrubber {

    private PiiScrubber() {
    }

    static void scan(String text, List<Hit> out) {
        SecretScanner.scan(text, out);
        NumberScanner.scan(text, out);
        ContactScanner.scan(text, out);
        NetworkScanner.scan(text, out);
    }
}
