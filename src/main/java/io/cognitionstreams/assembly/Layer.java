package io.cognitionstreams.assembly;

/**
 * What one context layer put into a packet, for the packet and for the CONTEXT_ASSEMBLED event (seed 002's log).
 *
 * @param originalTokens what it would have cost whole (equal to {@code tokens} unless compressed or cut)
 * @param note           why it was cut, compressed or skipped, for the event
 */
public record Layer(String name, int priority, String text, int tokens, int originalTokens, Status status,
                    String note) {

    public enum Status {
        /** In the packet as written. */
        KEPT,
        /** Over its budget, summarized to fit and tagged ⚠SUMMARY. */
        COMPRESSED,
        /** Over its budget; whole entries dropped from the end. */
        CUT,
        /** Nothing of it fitted its budget. */
        SKIPPED,
        /** Nothing to provide. */
        EMPTY
    }

    public static Layer empty(String name, int priority) {
        return new Layer(name, priority, "", 0, 0, Status.EMPTY, "");
    }
}
