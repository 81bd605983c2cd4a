package io.cognitionstreams.redaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The text as it moves through the stages. Tags written by one stage are cut out of what later stages see: each
 * stage scans only the stretches between tags, so no stage can match inside, or across, an earlier tag. A stage
 * scans the {@link NormalizedView} of a stretch, and its findings replace the original characters they came from.
 */
final class Draft {

    private final Map<String, Integer> counts = new TreeMap<>();
    private String text;
    // Start and end of every tag in the current text, ascending.
    private int[] tags = new int[0];
    // The view of the text as given, good until the first tag.
    private final NormalizedView given;
    // The text as given reads as it is written; so then does every stretch of it between tags.
    private final boolean unchanged;

    Draft(String text) {
        this.text = text;
        this.given = NormalizedView.of(text);
        this.unchanged = given.isUnchanged();
    }

    void run(Stage stage) {
        List<Hit> hits = new ArrayList<>();
        int from = 0;
        for (int t = 0; t <= tags.length; t += 2) {
            int to = t < tags.length ? tags[t] : text.length();
            if (to > from) {
                scan(stage, view(from, to), from, hits);
            }
            if (t < tags.length) {
                from = tags[t + 1];
            }
        }
        if (!hits.isEmpty()) {
            replace(hits);
        }
    }

    private NormalizedView view(int from, int to) {
        if (tags.length == 0) {
            return given;
        }
        String stretch = text.substring(from, to);
        return unchanged ? NormalizedView.unchanged(stretch) : NormalizedView.of(stretch);
    }

    /** Adds the winning findings in a stretch, in order, as spans of the text, the stretch starting at offset. */
    private static void scan(Stage stage, NormalizedView view, int offset, List<Hit> out) {
        List<Hit> found = new ArrayList<>();
        stage.scan(view.text(), found);
        if (found.isEmpty()) {
            return;
        }
        int covered = 0;
        for (Hit hit : Hit.resolve(found)) {
            // Neighbouring findings in one character (two halves of a ligature) both widen to all of it: the
            // earlier one takes it.
            int start = Math.max(view.originalStart(hit.start()), covered);
            int end = view.originalEnd(hit.end());
            if (end > start) {
                out.add(new Hit(start + offset, end + offset, hit.type(), hit.rank()));
                covered = end;
            }
        }
    }

    Redaction result() {
        return new Redaction(text, counts);
    }

    // hits: ascending, disjoint, all outside existing tags.
    private void replace(List<Hit> hits) {
        StringBuilder out = new StringBuilder(text.length() + 24 * hits.size());
        int[] merged = new int[tags.length + 2 * hits.size()];
        int m = 0;
        int t = 0;
        int pos = 0;
        int shift = 0;
        for (Hit hit : hits) {
            while (t < tags.length && tags[t] < hit.start()) {
                merged[m++] = tags[t++] + shift;
                merged[m++] = tags[t++] + shift;
            }
            out.append(text, pos, hit.start());
            merged[m++] = out.length();
            out.append("[REDACTED:").append(hit.type()).append(']');
            merged[m++] = out.length();
            shift = out.length() - hit.end();
            pos = hit.end();
            counts.merge(hit.type(), 1, Integer::sum);
        }
        while (t < tags.length) {
            merged[m++] = tags[t++] + shift;
        }
        out.append(text, pos, text.length());
        text = out.toString();
        tags = merged;
    }
}
