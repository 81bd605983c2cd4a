package io.cognitionstreams.routing;

import java.util.ArrayList;
import java.util.Comparator;
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
 * Linear in the output's length; no regular expressions, so hostile input cannot make it backtrack.
 */
public final class MarkerParser {

    private static final Marker[] MARKERS = {
            Marker.PLAN, Marker.EXECUTE, Marker.RESPONSE, Marker.THOUGHT_SEED, Marker.INTERRUPT, Marker.VERIFY};

    private MarkerParser() {
    }

    /** A parsed block. {@code nested} is true for a THOUGHT_SEED written inside another block. */
    public record Block(Marker marker, String text, boolean nested) {
    }

    public static List<Block> parse(String output) {
        String text = output.replace("\r\n", "\n").replace('\r', '\n');
        List<Positioned> blocks = new ArrayList<>();
        Marker current = null;
        int currentStart = 0;
        StringBuilder body = new StringBuilder();
        String fence = null;
        boolean sawMarker = false;
        int lineNo = 0;
        int start = 0;
        while (start <= text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            String line = text.substring(start, end);
            start = end + 1;
            lineNo++;
            if (fence != null) {
                if (line.startsWith(fence)) {
                    fence = null;
                }
                body.append(line).append('\n');
                continue;
            }
            if (line.startsWith("```") || line.startsWith("~~~")) {
                fence = line.substring(0, 3);
                body.append(line).append('\n');
                continue;
            }
            Marker marker = markerOf(line);
            if (marker == null) {
                body.append(line).append('\n');
                continue;
            }
            String rest = line.substring(marker.name().length() + 1);
            if (marker == Marker.THOUGHT_SEED && current != null) {
                blocks.add(new Positioned(lineNo, new Block(Marker.THOUGHT_SEED, rest.strip(), true)));
                continue;
            }
            Marker closing = current != null ? current : Marker.PREAMBLE;
            blocks.add(new Positioned(currentStart, new Block(closing, body.toString().strip(), false)));
            sawMarker = true;
            current = marker;
            currentStart = lineNo;
            body.setLength(0);
            body.append(rest).append('\n');
        }
        Marker last = current != null ? current : (sawMarker ? Marker.PREAMBLE : Marker.UNMARKED);
        blocks.add(new Positioned(currentStart, new Block(last, body.toString().strip(), false)));
        blocks.sort(Comparator.comparingInt(Positioned::line));
        List<Block> result = new ArrayList<>(blocks.size());
        for (Positioned positioned : blocks) {
            Block block = positioned.block();
            if (!block.text().isEmpty() || block.marker() == Marker.INTERRUPT && !isEmptyInterrupt(result)) {
                result.add(block);
            }
        }
        return result;
    }

    /** Whether the last block kept so far is an empty INTERRUPT. */
    private static boolean isEmptyInterrupt(List<Block> kept) {
        if (kept.isEmpty()) {
            return false;
        }
        Block last = kept.get(kept.size() - 1);
        return last.marker() == Marker.INTERRUPT && last.text().isEmpty();
    }

    private static Marker markerOf(String line) {
        if (line.isEmpty() || line.charAt(0) < 'E' || line.charAt(0) > 'V') {
            return null;
        }
        for (Marker marker : MARKERS) {
            String name = marker.name();
            if (line.length() > name.length() && line.startsWith(name) && line.charAt(name.length()) == ':') {
                return marker;
            }
        }
        return null;
    }

    private record Positioned(int line, Block block) {
    }
}
