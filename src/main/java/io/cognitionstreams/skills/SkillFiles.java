package io.cognitionstreams.skills;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.cognitionstreams.schema.Skill;

/**
 * Turns a directory of skills ({@code <name>/SKILL.md} plus the files its {@code required_refs} name) into the
 * records of the skills topic. Refs are read here, once, so every instance renders the same protocol without
 * access to the files.
 */
public final class SkillFiles {

    private SkillFiles() {
    }

    /** The skills under {@code root}, by name (the topic's key), in name order. */
    public static Map<String, Skill> load(Path root, Instant now) throws IOException {
        Map<String, Skill> records = new LinkedHashMap<>();
        for (SkillDefinition skill : SkillParser.parseDirectory(root).values()) {
            // Real paths on both sides: a symbolic link inside the folder must not lead a ref out of it.
            Path directory = root.resolve(skill.name()).toRealPath();
            String source = directory.resolve("SKILL.md").toString();
            Map<String, String> refs = new LinkedHashMap<>();
            for (String ref : skill.requiredRefs()) {
                refs.put(ref, Files.readString(refFile(directory, ref, source), StandardCharsets.UTF_8));
            }
            records.put(skill.name(), Skill.newBuilder()
                    .setName(skill.name())
                    .setVersion(skill.version())
                    .setDescription(skill.description())
                    .setPermissions(skill.permissions().permissions().stream().map(Permission::canonical).sorted()
                            .toList())
                    .setRetrySafe(skill.retrySafe().permissions().stream().map(Permission::canonical).sorted()
                            .toList())
                    .setApproval(skill.approval().permissions().stream().map(Permission::canonical).sorted()
                            .toList())
                    .setRequiredRefs(skill.requiredRefs())
                    .setProtocol(skill.protocol())
                    .setRefs(refs)
                    .setSource(source)
                    .setTimestamp(now)
                    .build());
        }
        return records;
    }

    private static Path refFile(Path directory, String ref, String source) throws IOException {
        Path file = directory.resolve(ref).normalize();
        if (!file.startsWith(directory)) {
            throw new SkillFormatException(source, "required ref " + ref + " points outside the skill's directory");
        }
        if (!Files.isRegularFile(file)) {
            throw new SkillFormatException(source, "required ref " + ref + " does not exist");
        }
        Path real = file.toRealPath();
        if (!real.startsWith(directory)) {
            throw new SkillFormatException(source, "required ref " + ref + " is a symbolic link to " + real
                    + ", outside the skill's directory");
        }
        SkillParser.requireReadable(real);
        return real;
    }
}
