package io.cognitionstreams.routing;

import java.util.ArrayList;
import java.util.List;

import io.cognitionstreams.schema.Marker;

/**
 * Splits LLM output into marker blocks (seed 003 section 7.1). The rules, each of which a test pins down:
 * <ul>
 *   <li>A marker is one of PLAN:, EXECUTE:, RESPONSE:, THOUGHT_SEED:, INTERRUPT:, VERIFY: at the very start of a
 *       line, in capitals. A block runs from its marker to the next marker line.</li>
 *   <li>Inside a fenced code block (a line starting with ``` or ~~~ opens it, the same fence closes it) nothing is a
 *       marker: models quote marker-like text in code.</li>
 *   <li>THOUGHT_SEED nests: inside an open block a THOUGHT_SEED: line is a one-line seed of its own and the
 *       enclosing block goes on after it. Outside any block it opens an ordinary block.</li>
 *   <li>Text before the first marker is a PREAMBLE block; an output with no marker at all is one UNMARKED block.</li>
 *   <li>Other LABEL: lines (NOTE:, Plan:) are plain text of the current block.</li>
 *   <li>CRLF and CR line ends become LF. Block text is trimmed of surrounding blank space.</li>
 *   <li>A block with no text is dropped, except INTERRUPT: an empty interrupt still stops the stream. Empty
 *       interrupts in a row are one: repeating the word adds nothing, and must not multiply what is routed.</li>
 * </ul>
 * Linear in the output's length; no regular expressions, so hostile input cannot make it backtrack. The rules are
 * applied by {@link MarkerStream}, which the model worker also runs over an answer as it streams.
 */
public final class MarkerParser {

    private MarkerParser() {
    }

    /** A parsed block. {@code nested} is true for a THOUGHT_SEED written inside another block. */
    public record Block(Marker marker, String text, boolean nested) {
    }

    public static List<Block> parse(String output) {
        List<Marker> markers = new ArrayList<>();
        List<Boolean> nested = new ArrayList<>();
        List<StringBuilder> texts = new ArrayList<>();
        MarkerStream stream = new MarkerStream(new MarkerStream.Listener() {
            @Override
            public void open(int index, Marker marker, boolean inside) {
                markers.add(marker);
                nested.add(inside);
                texts.add(new StringBuilder());
            }

            @Override
            public void text(int index, CharSequence text) {
                texts.get(index).append(text);
            }

            @Override
            public void close(int index, Marker marker) {
                markers.set(index, marker);
            }
        });
        stream.feed(output);
        stream.finish();
        List<Block> result = new ArrayList<>(markers.size());
        boolean afterEmptyInterrupt = false;
        for (int i = 0; i < markers.size(); i++) {
            Block block = new Block(markers.get(i), texts.get(i).toString().strip(), nested.get(i));
            if (kept(block.marker(), block.text().isEmpty(), afterEmptyInterrupt)) {
                result.add(block);
                afterEmptyInterrupt = isEmptyInterrupt(block.marker(), block.text().isEmpty());
            }
        }
        return result;
    }

    /**
     * Whether a block is kept, given whether the block kept last was an empty INTERRUPT: one with text always, an
     * empty one only when it is an INTERRUPT that does not repeat an empty one.
     */
    static boolean kept(Marker marker, boolean empty, boolean afterEmptyInterrupt) {
        return !empty || marker == Marker.INTERRUPT && !afterEmptyInterrupt;
    }

    static boolean isEmptyInterrupt(Marker marker, boolean empty) {
        return marker == Marker.INTERRUPT && empty;
    }
}
