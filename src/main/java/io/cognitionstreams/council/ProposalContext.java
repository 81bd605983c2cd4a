package io.cognitionstreams.council;

import java.util.Optional;

/**
 * The context a proposal's content carries after the call it asks about (docs/council.md, "The vote prompt"): the
 * protocol of the call's skill and the session's recent turns, each under a heading line of its own, so a vote
 * prompt can give each part its share of a token budget and `council pending` shows them as they are. Inside the
 * content, so the proposer's signature and the decision's digest cover them like the call.
 *
 * @param call     what the proposal asks (for a gated call: tool, skill, risk, arguments and their digest)
 * @param protocol the skill's protocol, when the call has a skill the proposer knows
 * @param turns    the session's recent turns, oldest first, when the proposer has seen any
 */
public record ProposalContext(String call, Optional<String> protocol, Optional<String> turns) {

    /** Heads the skill's protocol. */
    public static final String PROTOCOL_HEADING = "\n\n--- skill protocol ---\n";
    /** Heads the recent turns, which come last: the newest turn is the content's end. */
    public static final String TURNS_HEADING = "\n\n--- recent turns of the session, oldest first ---\n";

    /**
     * The content: the call, then the protocol and the turns that are there. A heading inside a part (the model or a
     * person can write anything) is defanged, so the parts read back as they were put in.
     */
    public String content() {
        return defang(call) + protocol.map(text -> PROTOCOL_HEADING + defang(text)).orElse("")
                + turns.map(text -> TURNS_HEADING + defang(text)).orElse("");
    }

    /** The parts of a proposal's content; a content without headings (a person's proposal) is all call. */
    public static ProposalContext of(String content) {
        int protocolAt = content.indexOf(PROTOCOL_HEADING);
        int turnsAt = content.indexOf(TURNS_HEADING, Math.max(0, protocolAt));
        int callEnd = protocolAt >= 0 ? protocolAt : turnsAt >= 0 ? turnsAt : content.length();
        Optional<String> protocol = protocolAt < 0 ? Optional.empty() : Optional.of(content.substring(
                protocolAt + PROTOCOL_HEADING.length(), turnsAt >= 0 ? turnsAt : content.length()));
        Optional<String> turns = turnsAt < 0 ? Optional.empty()
                : Optional.of(content.substring(turnsAt + TURNS_HEADING.length()));
        return new ProposalContext(content.substring(0, callEnd), protocol, turns);
    }

    private static String defang(String text) {
        return text.replace(PROTOCOL_HEADING, "\n\n-- skill protocol --\n")
                .replace(TURNS_HEADING, "\n\n-- recent turns of the session, oldest first --\n");
    }
}
