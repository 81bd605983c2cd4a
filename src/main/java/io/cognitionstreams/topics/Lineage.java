package io.cognitionstreams.topics;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the ids of a turn's records derive from each other, in one place: an output's id from its packet's, a block's
 * (and an EXECUTE block's tool call's) from its output's and its position, and back. Derived, not random, so a
 * re-delivered record has the same id (duplicates are visible) and a replayed turn can name the original record it
 * re-runs.
 */
public final class Lineage {

    private static final String OUTPUT_SUFFIX = "-out";
    private static final Pattern BLOCK_ID = Pattern.compile("(.+)#(\\d{1,9})");

    private Lineage() {
    }

    /** Where a block, or the call an EXECUTE block became, sits: its output and its position in it. */
    public record Place(String outputId, int index) {
    }

    /** The id of the model's answer to a packet. */
    public static String outputId(String packetId) {
        return packetId + OUTPUT_SUFFIX;
    }

    /** The id of block {@code index} of an output, and of the tool call an EXECUTE block becomes. */
    public static String blockId(String outputId, int index) {
        return outputId + "#" + index;
    }

    /** The place {@link #blockId} names; empty for an id made otherwise (an agent's own call). */
    public static Optional<Place> place(String blockId) {
        Matcher matcher = BLOCK_ID.matcher(blockId);
        return matcher.matches() ? Optional.of(new Place(matcher.group(1), Integer.parseInt(matcher.group(2))))
                : Optional.empty();
    }

    /** The packet a call made by routing answers: the inverse of {@link #outputId} over {@link #place}. */
    public static Optional<String> packetOfCall(String callId) {
        return place(callId).map(Place::outputId).filter(id -> id.endsWith(OUTPUT_SUFFIX))
                .map(id -> id.substring(0, id.length() - OUTPUT_SUFFIX.length()));
    }
}
