package io.cognitionstreams.routing;

import io.cognitionstreams.schema.Marker;

/**
 * The marker rules of {@link MarkerParser} applied to text as it arrives: tells a {@link Listener} where each block
 * opens and closes and what text it has, as soon as that is certain. The start of a line that could still become a
 * marker or a fence ({@code RESP}, {@code ``}) is held until it is decided; everything else is passed on at once.
 * {@link MarkerParser#parse} is this fed with a whole output, so the two cannot disagree. Not thread-safe.
 */
final class MarkerStream {

    private static final Marker[] MARKERS = {
            Marker.PLAN, Marker.EXECUTE, Marker.RESPONSE, Marker.THOUGHT_SEED, Marker.INTERRUPT, Marker.VERIFY};
    private static final String[] FENCES = {"```", "~~~"};
    private static final int FENCE_LENGTH = 3;

    /**
     * What the stream finds. Blocks are numbered in the order they open, which is their order in the output: a
     * nested THOUGHT_SEED comes after the block around it, though it closes first.
     */
    interface Listener {
        /** Block {@code index} opens; {@code marker} is null for the text before the first marker. */
        void open(int index, Marker marker, boolean nested);

        /** More text of block {@code index}, as written (line ends as LF), blank space around it included. */
        void text(int index, CharSequence text);

        /**
         * Block {@code index} closes. {@code marker} is its marker; for the text before the first marker, now known:
         * PREAMBLE when a marker followed, UNMARKED when none did.
         */
        void close(int index, Marker marker);
    }

    private final Listener listener;
    // The start of the current line while it is undecided: at most a marker's length.
    private final StringBuilder line = new StringBuilder();
    private boolean deciding = true;
    private boolean seedLine;
    private String fence;
    private Marker current;
    private int block;
    private int seed = -1;
    private int opened = 1;
    private boolean afterCr;

    MarkerStream(Listener listener) {
        this.listener = listener;
        listener.open(0, null, false);
    }

    /** The next piece of the output. */
    void feed(CharSequence text) {
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (afterCr) {
                afterCr = false;
                if (c == '\n') {
                    i++;
                    continue;
                }
            }
            if (c == '\r' || c == '\n') {
                afterCr = c == '\r';
                endLine();
                i++;
            } else if (deciding) {
                line.append(c);
                decide(false);
                i++;
            } else {
                int end = i;
                while (end < n && text.charAt(end) != '\n' && text.charAt(end) != '\r') {
                    end++;
                }
                lineText(text.subSequence(i, end));
                i = end;
            }
        }
    }

    /** The output is complete: its last line is decided and every open block closes. */
    void finish() {
        if (deciding) {
            decide(true);
        }
        if (seedLine) {
            closeSeed();
        }
        listener.close(block, current != null ? current : Marker.UNMARKED);
    }

    private void endLine() {
        if (deciding) {
            decide(true);
        }
        if (seedLine) {
            closeSeed();
        } else {
            listener.text(block, "\n");
        }
        deciding = true;
    }

    private void closeSeed() {
        listener.close(seed, Marker.THOUGHT_SEED);
        seedLine = false;
        seed = -1;
    }

    private void lineText(CharSequence text) {
        if (!text.isEmpty()) {
            listener.text(seedLine ? seed : block, text);
        }
    }

    /** Decides the current line's start once it can: a fence, a marker, or text. */
    private void decide(boolean complete) {
        if (fence != null) {
            if (!complete && line.length() < FENCE_LENGTH && startsWith(fence, line)) {
                return;
            }
            // Inside a fence nothing is a marker; the line that starts with the fence closes it.
            if (startsWith(line, fence)) {
                fence = null;
            }
            decided();
            return;
        }
        if (!complete && (couldBeFence() || couldBeMarker())) {
            return;
        }
        for (String opening : FENCES) {
            if (startsWith(line, opening)) {
                fence = opening;
                decided();
                return;
            }
        }
        Marker marker = markerOf(line);
        if (marker == null) {
            decided();
            return;
        }
        String rest = line.substring(marker.name().length() + 1);
        if (marker == Marker.THOUGHT_SEED && current != null) {
            // Inside an open block a seed is a line of its own; the block goes on after it.
            seed = opened++;
            listener.open(seed, Marker.THOUGHT_SEED, true);
            seedLine = true;
        } else {
            listener.close(block, current != null ? current : Marker.PREAMBLE);
            current = marker;
            block = opened++;
            listener.open(block, marker, false);
        }
        line.setLength(0);
        line.append(rest);
        decided();
    }

    /** The line start so far is text of the open block (or seed): passed on, and the rest of the line with it. */
    private void decided() {
        deciding = false;
        lineText(line);
        line.setLength(0);
    }

    private boolean couldBeFence() {
        for (String opening : FENCES) {
            if (line.length() < FENCE_LENGTH && startsWith(opening, line)) {
                return true;
            }
        }
        return false;
    }

    /** The line so far is the start of a marker and its colon, not all of them yet. */
    private boolean couldBeMarker() {
        for (Marker marker : MARKERS) {
            String name = marker.name();
            if (line.length() <= name.length() && startsWith(name, line)) {
                return true;
            }
        }
        return false;
    }

    /** The marker a line starts with, in capitals and followed by its colon. */
    static Marker markerOf(CharSequence line) {
        if (line.isEmpty() || line.charAt(0) < 'E' || line.charAt(0) > 'V') {
            return null;
        }
        for (Marker marker : MARKERS) {
            String name = marker.name();
            if (line.length() > name.length() && startsWith(line, name) && line.charAt(name.length()) == ':') {
                return marker;
            }
        }
        return null;
    }

    private static boolean startsWith(CharSequence text, CharSequence prefix) {
        if (text.length() < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (text.charAt(i) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
