package io.cognitionstreams.assembly;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.cognitionstreams.schema.Skill;

/**
 * Renders {@code {{ skill.name }}}, {@code {{ skill.version }}} and {@code {{ skill.description }}} in a skill's
 * protocol (seed 002 section 5). Other placeholders are left as written, so a typo shows in the packet instead of
 * vanishing.
 */
final class SkillTemplates {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*skill\\.(name|version|description)\\s*}}");

    private SkillTemplates() {
    }

    static String render(String text, Skill skill) {
        if (text.indexOf("{{") < 0) {
            return text;
        }
        Matcher matcher = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String value = switch (matcher.group(1)) {
                case "name" -> skill.getName();
                case "version" -> skill.getVersion();
                default -> skill.getDescription();
            };
            matcher.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(out);
        return out.toString();
    }
}
