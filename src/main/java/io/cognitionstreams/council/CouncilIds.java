package io.cognitionstreams.council;

import java.util.Optional;

/**
 * What names a council: the key of council.messages, and what a session names on its requests (council_id) so its
 * escalations reach the council it works with. One rule for both, so an id a request was accepted with is never
 * refused later by the council, when its escalation arrives there.
 */
public final class CouncilIds {

    /** The council of a session that names none. */
    public static final String DEFAULT = "default";

    private CouncilIds() {
    }

    /** The council a session works with: the one it named, else {@value #DEFAULT}. */
    public static String orDefault(String councilId) {
        return councilId != null ? councilId : DEFAULT;
    }

    /**
     * Why {@code councilId} cannot name a council; empty when it can. The council keeps its stores under
     * {@code <council id>/<role or proposal>}, so a {@code /} would let one council's keys reach into another's.
     */
    public static Optional<String> problem(String councilId) {
        if (councilId == null || councilId.isBlank()) {
            return Optional.of("council_id is empty");
        }
        if (councilId.contains("/")) {
            return Optional.of("council_id '" + councilId + "' contains '/'");
        }
        return Optional.empty();
    }
}
