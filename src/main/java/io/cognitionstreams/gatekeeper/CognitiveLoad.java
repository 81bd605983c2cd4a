package io.cognitionstreams.gatekeeper;

/**
 * When a session juggles too many skills' rules at once. Overloaded means more active skills than the threshold
 * (default 5): at the threshold itself all is well. Then even approved calls carry a warning ({@link ResultAnnotator}).
 *
 * @param threshold the most active skills without a warning; 0 warns from the first skill on
 */
public record CognitiveLoad(int threshold) {

    public static final int DEFAULT_THRESHOLD = 5;

    public CognitiveLoad {
        if (threshold < 0) {
            throw new IllegalArgumentException("cognitive load threshold must be >= 0, got " + threshold);
        }
    }

    public static CognitiveLoad defaults() {
        return new CognitiveLoad(DEFAULT_THRESHOLD);
    }

    public boolean overloaded(int activeSkills) {
        return activeSkills > threshold;
    }

    /** The warning text for a session with {@code activeSkills} active skills. */
    public static String warning(int activeSkills, int threshold) {
        String active = activeSkills == 1 ? "1 skill is" : activeSkills + " skills are";
        return "[COGNITIVE LOAD WARNING] " + active + " active in this session (limit " + threshold + "). With "
                + "this many rule sets in play they blur and drift. Finish the current task with the skills it "
                + "needs, then reset the session's active skills (or start a new session) before other work.";
    }
}
