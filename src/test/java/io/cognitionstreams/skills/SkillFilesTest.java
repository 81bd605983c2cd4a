package io.cognitionstreams.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.schema.Skill;

class SkillFilesTest {

    private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");

    @Test
    void theShippedSkillsLoadWithTheirRefsAndCanonicalPermissions() throws IOException {
        Map<String, Skill> skills = SkillFiles.load(Path.of("./skills"), NOW);

        assertThat(skills).containsOnlyKeys("git", "inspector", "researcher", "shell-operator", "writer");
        Skill git = skills.get("git");
        assertThat(git.getPermissions()).containsExactly("filesystem:read", "git:*");
        assertThat(git.getRefs()).containsOnlyKeys("references/commit-messages.md");
        assertThat(git.getRefs().get("references/commit-messages.md")).isNotBlank();
        assertThat(git.getProtocol()).contains("{{ skill.name }}");
        assertThat(git.getTimestamp()).isEqualTo(NOW);
    }

    @Test
    void aRefOutsideTheSkillsDirectoryOrMissingIsRefusedWithTheFile(@TempDir Path root) throws IOException {
        write(root, "leaky", "required_refs:\n  - ../../etc/passwd\n");
        assertThatThrownBy(() -> SkillFiles.load(root, NOW)).isInstanceOf(SkillFormatException.class)
                .hasMessageContaining("leaky").hasMessageContaining("points outside the skill's directory");

        Files.delete(root.resolve("leaky/SKILL.md"));
        Files.delete(root.resolve("leaky"));
        write(root, "forgetful", "required_refs:\n  - notes.md\n");
        assertThatThrownBy(() -> SkillFiles.load(root, NOW)).isInstanceOf(SkillFormatException.class)
                .hasMessageContaining("required ref notes.md does not exist");
    }

    @Test
    void aRefThatIsASymbolicLinkOutOfTheSkillsDirectoryIsRefused(@TempDir Path root, @TempDir Path elsewhere)
            throws IOException {
        Files.writeString(elsewhere.resolve("secrets.md"), "the vault password is hunter2");
        write(root, "linked", "required_refs:\n  - notes.md\n");
        Files.createSymbolicLink(root.resolve("linked/notes.md"), elsewhere.resolve("secrets.md"));

        assertThatThrownBy(() -> SkillFiles.load(root, NOW)).isInstanceOf(SkillFormatException.class)
                .hasMessageContaining("required ref notes.md is a symbolic link to")
                .hasMessageContaining("outside the skill's directory");
    }

    @Test
    void aSymbolicLinkInsideTheSkillsDirectoryIsFollowed(@TempDir Path root) throws IOException {
        write(root, "tidy", "required_refs:\n  - notes.md\n");
        Files.writeString(root.resolve("tidy/real-notes.md"), "Keep commits small.");
        Files.createSymbolicLink(root.resolve("tidy/notes.md"), root.resolve("tidy/real-notes.md"));

        assertThat(SkillFiles.load(root, NOW).get("tidy").getRefs()).containsEntry("notes.md", "Keep commits small.");
    }

    @Test
    void aHugeSkillFileOrRefIsRefusedBeforeItIsRead(@TempDir Path root) throws IOException {
        write(root, "chatty", "required_refs:\n  - big.md\n");
        Files.writeString(root.resolve("chatty/big.md"), "x".repeat(SkillParser.MAX_FILE_BYTES + 1));
        assertThatThrownBy(() -> SkillFiles.load(root, NOW)).isInstanceOf(SkillFormatException.class)
                .hasMessageContaining("big.md: " + (SkillParser.MAX_FILE_BYTES + 1) + " bytes, over the "
                        + SkillParser.MAX_FILE_BYTES);

        Files.writeString(root.resolve("chatty/SKILL.md"), "---\nname: chatty\n---\n"
                + "y".repeat(SkillParser.MAX_FILE_BYTES));
        assertThatThrownBy(() -> SkillFiles.load(root, NOW)).isInstanceOf(SkillFormatException.class)
                .hasMessageContaining("SKILL.md: ").hasMessageContaining("bytes, over the");
    }

    private static void write(Path root, String name, String extraFrontMatter) throws IOException {
        Files.createDirectories(root.resolve(name));
        Files.writeString(root.resolve(name).resolve("SKILL.md"), "---\nname: " + name + "\nversion: \"1.0.0\"\n"
                + "permissions:\n  - fs:read\n" + extraFrontMatter + "---\nRead only what you need.\n");
    }
}
