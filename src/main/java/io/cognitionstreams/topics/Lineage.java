package io.cognitionstreams.topics;

/**
 * How the ids of a turn's records derive from each other, in one place: an output's id from its packet's, a block's
 * (and an EXECUTE block's tool call's) from its output's and its position. Derived, not random, so a re-delivered
 * record has the same id (duplicates are visible) and a replayed turn can name the original record it re-runs.
 */
public final class Lineage {

    private Lineage() {
    }

    /** The id of the model's answer to a packet. */
    public static String outputId(String packetId) {
        return packetId + "-out";
    }

    /** The id of block {@code index} of an output, and of the tool call an EXECUTE block becomes. */
    public static String blockId(String outputId, int index) {
        return outputId + "#" + index;
    }
}
