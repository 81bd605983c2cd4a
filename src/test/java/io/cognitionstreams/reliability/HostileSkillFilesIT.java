package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/**
 * Skill folders an attacker (or a careless author) hands to `cognition skills load`, run as the launcher runs it:
 * a YAML alias bomb, 100-deep nesting, a SKILL.md over 256 KiB, and a reference that is a symbolic link out of its
 * skill's folder. Each is refused with the file it came from, the process exits non-zero in its own JVM (no 2 GiB
 * of expanded aliases), and nothing of the folder reaches cognition.skills; a sound folder loads after them.
 */
@ExtendWith(SharedBroker.class)
class HostileSkillFilesIT {

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void hostileSkillFoldersAreRefusedNamingTheFileAndLoadNothing(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();

        StringBuilder bomb = new StringBuilder("---\nname: bomb\na: &a [\"lol\",\"lol\",\"lol\"]\n");
        char previous = 'a';
        for (char level = 'b'; level <= 'j'; level++) {
            bomb.append(level).append(": &").append(level).append(" [")
                    .append(String.join(",", java.util.Collections.nCopies(9, "*" + previous))).append("]\n");
            previous = level;
        }
        refused(bootstrap, dir, "bomb", bomb + "---\nBe brief.\n", "front matter is not valid YAML");
        refused(bootstrap, dir, "deep", "---\nname: deep\nx: " + "[".repeat(100) + "]".repeat(100)
                + "\n---\nBe brief.\n", "front matter is not valid YAML");
        refused(bootstrap, dir, "huge", "---\nname: huge\n---\n" + "Be brief. ".repeat(30_000),
                "over the " + io.cognitionstreams.skills.SkillParser.MAX_FILE_BYTES);

        Path linked = dir.resolve("linked").resolve("linked");
        Files.createDirectories(linked);
        Files.writeString(dir.resolve("secrets.md"), "the operator's private notes");
        Files.createSymbolicLink(linked.resolve("notes.md"), dir.resolve("secrets.md"));
        refused(bootstrap, dir, "linked", "---\nname: linked\nrequired_refs:\n  - notes.md\n---\n"
                + "Read the notes.\n", "outside");

        Path sound = dir.resolve("sound");
        Files.createDirectories(sound.resolve("sound-" + run));
        Files.writeString(sound.resolve("sound-" + run).resolve("SKILL.md"), "---\nname: sound-" + run
                + "\npermissions:\n  - git:status\n---\nLook, do not touch.\n");
        Cli load = Cli.launch(dir, "skills", "load", "--dir", sound.toString(), "--bootstrap-servers", bootstrap);
        assertThat(load.exitCode()).as(load.err()).isZero();

        assertThat(Kafka.readUntil(bootstrap, Drivers.topics().skills, skill -> skill.getName().endsWith(run),
                seen -> !seen.isEmpty(), java.time.Duration.ofSeconds(30)))
                .as("only the sound folder's skill reached " + Topics.COGNITION_SKILLS)
                .extracting(Skill::getName).containsExactly("sound-" + run);
    }

    /** Loads {@code dir/<folder>} whose one skill has {@code text} as SKILL.md (unless already made) and expects a
     * refusal naming that file. */
    private void refused(String bootstrap, Path dir, String folder, String text, String reason)
            throws IOException, InterruptedException {
        Path skill = dir.resolve(folder).resolve(folder);
        Files.createDirectories(skill);
        Files.writeString(skill.resolve("SKILL.md"), text);
        Cli load = Cli.launch(dir, "skills", "load", "--dir", dir.resolve(folder).toString(), "--bootstrap-servers",
                bootstrap);
        assertThat(load.exitCode()).as("%s: %s", folder, load.err()).isNotZero();
        assertThat(load.err()).as(folder).contains(skill.toString(), reason);
    }
}
