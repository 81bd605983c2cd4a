package io.cognitionstreams.skills;

/** A SKILL.md that cannot be loaded; the message starts with the file (or source) it came from. */
public final class SkillFormatException extends IllegalArgumentException {

    public SkillFormatException(String source, String problem) {
        super(source + ": " + problem);
    }

    public SkillFormatException(String source, String problem, Throwable cause) {
        super(source + ": " + problem, cause);
    }
}
