package io.cognitionstreams.skills;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a SKILL.md: YAML front matter between a first line {@code ---} and the next line {@code ---}, then the
 * Markdown body, which is the skill's protocol. Front matter keys:
 * <ul>
 *   <li>{@code name} (required): letters, digits, {@code _}, {@code -}; the name tool calls use.</li>
 *   <li>{@code version}, {@code description} (optional strings). Quote a version YAML would read as a number
 *       ({@code "1.10"}), or it is refused rather than silently becoming 1.1.</li>
 *   <li>{@code permissions} (optional list of strings, see {@link Permission}); absent means the skill may call no
 *       tool. Quote the lone wildcard ({@code - "*"}): bare {@code *} is YAML alias syntax.</li>
 *   <li>{@code required_refs} (optional list of strings).</li>
 *   <li>{@code retry_safe} (optional list of permission patterns, as {@code permissions}): tools that are read-only
 *       or idempotent, which an executor may run again after a crash. It grants nothing: a tool listed here
 *       that {@code permissions} does not cover is still denied.</li>
 *   <li>{@code approval} (optional list of permission patterns): tools whose calls wait for the council's approval
 *       on top of the operator's policy. It grants nothing either, and can only add approvals.</li>
 * </ul>
 * Other keys are ignored, so SKILL.md files written for other tools still load. Duplicate keys are refused: a second
 * {@code permissions} must not quietly replace the first. The body must not be blank: a skill without a protocol
 * has nothing to re-anchor the model with.
 */
public final class SkillParser {

    private static final String SKILL_FILE = "SKILL.md";
    private static final String FENCE = "---";
    /**
     * A protocol goes into every packet of its sessions and a skill record must fit its topic: a file past this is
     * a mistake or an attack, refused before it is read.
     */
    public static final int MAX_FILE_BYTES = 256 * 1024;
    /** Front matter is a few keys; these bounds keep a YAML alias or nesting bomb from costing anything. */
    private static final int MAX_ALIASES = 20;
    private static final int MAX_NESTING = 20;

    private SkillParser() {
    }

    /** Reads {@code file} as UTF-8 and parses it; errors name the file. */
    public static SkillDefinition parse(Path file) throws IOException {
        requireReadable(file);
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /** Refuses a file over {@link #MAX_FILE_BYTES} before reading it. */
    public static void requireReadable(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_FILE_BYTES) {
            throw new SkillFormatException(file.toString(), size + " bytes, over the " + MAX_FILE_BYTES
                    + " a skill's file may have");
        }
    }

    /**
     * Loads every {@code <name>/SKILL.md} under {@code root}, keyed and sorted by name. Each skill's name must equal
     * its directory's name, and every directory must hold a SKILL.md: a misnamed file fails loudly, not by absence.
     */
    public static Map<String, SkillDefinition> parseDirectory(Path root) throws IOException {
        List<Path> directories;
        try (Stream<Path> entries = Files.list(root)) {
            directories = entries.filter(Files::isDirectory).sorted().toList();
        }
        Map<String, SkillDefinition> skills = new TreeMap<>();
        for (Path directory : directories) {
            Path file = directory.resolve(SKILL_FILE);
            if (!Files.isRegularFile(file)) {
                throw new SkillFormatException(directory.toString(), "no " + SKILL_FILE + " in this skill directory");
            }
            SkillDefinition skill = parse(file);
            String expected = directory.getFileName().toString();
            if (!skill.name().equals(expected)) {
                throw new SkillFormatException(file.toString(),
                        "name \"" + skill.name() + "\" differs from its directory \"" + expected + "\"");
            }
            skills.put(skill.name(), skill);
        }
        return skills;
    }

    /** Parses SKILL.md text; {@code source} names it in errors. */
    public static SkillDefinition parse(String content, String source) {
        String text = content.replace("\r\n", "\n");
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        int firstEnd = text.indexOf('\n');
        String firstLine = firstEnd < 0 ? text : text.substring(0, firstEnd);
        if (!firstLine.stripTrailing().equals(FENCE)) {
            throw new SkillFormatException(source, "missing front matter: the file must start with a line '---', "
                    + "then YAML (name, permissions, ...), then a closing '---'");
        }
        int yamlStart = firstEnd + 1;
        int lineStart = yamlStart;
        int bodyStart = -1;
        while (firstEnd >= 0 && lineStart <= text.length()) {
            int lineEnd = text.indexOf('\n', lineStart);
            if (lineEnd < 0) {
                lineEnd = text.length();
            }
            if (text.substring(lineStart, lineEnd).stripTrailing().equals(FENCE)) {
                bodyStart = Math.min(lineEnd + 1, text.length());
                break;
            }
            lineStart = lineEnd + 1;
        }
        if (bodyStart < 0) {
            throw new SkillFormatException(source, "front matter is not closed: no second line '---'");
        }
        Map<?, ?> front = frontMatter(text.substring(yamlStart, lineStart), source);
        String protocol = text.substring(bodyStart).strip();
        if (protocol.isEmpty()) {
            throw new SkillFormatException(source, "no protocol: the Markdown body after the front matter is empty");
        }
        String name = name(front, source);
        PermissionSet permissions;
        PermissionSet retrySafe;
        PermissionSet approval;
        try {
            permissions = PermissionSet.compile(stringList(front, "permissions", source));
            retrySafe = PermissionSet.compile(stringList(front, "retry_safe", source));
            approval = PermissionSet.compile(stringList(front, "approval", source));
        } catch (IllegalArgumentException e) {
            throw new SkillFormatException(source, e.getMessage(), e);
        }
        return new SkillDefinition(name, optionalString(front, "version", source),
                optionalString(front, "description", source), permissions,
                stringList(front, "required_refs", source), protocol, retrySafe, approval);
    }

    private static Map<?, ?> frontMatter(String yaml, String source) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setNestingDepthLimit(MAX_NESTING);
        options.setAllowRecursiveKeys(false);
        Object loaded;
        try {
            loaded = new Yaml(new SafeConstructor(options)).load(yaml);
        } catch (YAMLException e) {
            throw new SkillFormatException(source, "front matter is not valid YAML: " + e.getMessage(), e);
        }
        if (loaded == null) {
            return Map.of();
        }
        if (!(loaded instanceof Map<?, ?> map)) {
            throw new SkillFormatException(source, "front matter must be a YAML mapping (key: value lines)");
        }
        return map;
    }

    private static String name(Map<?, ?> front, String source) {
        Object value = front.get("name");
        if (value == null) {
            throw new SkillFormatException(source, "missing name in the front matter");
        }
        if (!(value instanceof String name) || name.isBlank()) {
            throw new SkillFormatException(source, "name must be a non-empty string, got: " + describe(value));
        }
        for (int i = 0; i < name.length(); i++) {
            if (!ToolNames.isNameChar(name.charAt(i))) {
                throw new SkillFormatException(source,
                        "name \"" + name + "\" may only use letters, digits, _ and -");
            }
        }
        return name;
    }

    private static String optionalString(Map<?, ?> front, String key, String source) {
        Object value = front.get(key);
        if (value == null) {
            return "";
        }
        if (!(value instanceof String text)) {
            throw new SkillFormatException(source, key + " must be a string (quote it), got: " + describe(value));
        }
        return text.strip();
    }

    /**
     * A YAML value for an error message. Never the value's own toString: aliases share one node many times, and
     * printing it in full is how a few lines of YAML become gigabytes.
     */
    private static String describe(Object value) {
        if (value instanceof List<?> list) {
            return "a list of " + list.size();
        }
        if (value instanceof Map<?, ?> map) {
            return "a mapping of " + map.size() + " keys";
        }
        String text = String.valueOf(value);
        return text.length() <= 60 ? text : text.substring(0, 60) + "...";
    }

    private static List<String> stringList(Map<?, ?> front, String key, String source) {
        Object value = front.get(key);
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> items)) {
            throw new SkillFormatException(source, key + " must be a list ('- item' lines), got: "
                    + describe(value));
        }
        List<String> strings = new ArrayList<>(items.size());
        for (Object item : items) {
            if (!(item instanceof String text) || text.isBlank()) {
                throw new SkillFormatException(source, key + " entries must be non-empty strings, got: "
                        + describe(item));
            }
            strings.add(text);
        }
        return strings;
    }
}
