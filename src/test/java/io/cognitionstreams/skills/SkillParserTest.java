package io.cognitionstreams.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkillParserTest {

    private static final String GIT = """
            ---
            name: git
            version: 1.2.0
            description: Commits changes
            permissions:
              - git:*
              - filesystem.read
            required_refs:
              - references/commit-messages.md
            ---
            # {{ skill.name }} protocol

            1. Look before you commit.
            """;

    @Test
    void frontMatterAndBodyBecomeASkill() {
        SkillDefinition skill = SkillParser.parse(GIT, "git/SKILL.md");

        assertThat(skill.name()).isEqualTo("git");
        assertThat(skill.version()).isEqualTo("1.2.0");
        assertThat(skill.description()).isEqualTo("Commits changes");
        assertThat(skill.permissions()).isEqualTo(PermissionSet.compile(List.of("git:*", "filesystem:read")));
        assertThat(skill.requiredRefs()).containsExactly("references/commit-messages.md");
        assertThat(skill.protocol()).isEqualTo("# {{ skill.name }} protocol\n\n1. Look before you commit.");
    }

    @Test
    void crlfLineEndsAndAByteOrderMarkAreAccepted() {
        SkillDefinition skill = SkillParser.parse("\uFEFF" + GIT.replace("\n", "\r\n"), "git/SKILL.md");

        assertThat(skill.name()).isEqualTo("git");
        assertThat(skill.protocol()).isEqualTo("# {{ skill.name }} protocol\n\n1. Look before you commit.");
    }

    @Test
    void optionalKeysDefaultToEmptyAndUnknownKeysAreIgnored() {
        SkillDefinition skill = SkillParser.parse("---\nname: idle\nlicense: MIT\npermissions:\n---\nDo nothing.\n", "idle");

        assertThat(skill.version()).isEmpty();
        assertThat(skill.description()).isEmpty();
        assertThat(skill.permissions().permissions()).isEmpty();
        assertThat(skill.requiredRefs()).isEmpty();
        assertThat(skill.protocol()).isEqualTo("Do nothing.");
    }

    @Test
    void aQuotedStarAllowsEverything() {
        SkillDefinition skill = SkillParser.parse("---\nname: admin\npermissions:\n  - \"*\"\n---\nBe careful.\n", "admin");

        assertThat(skill.permissions().allows("shell.run")).isTrue();
    }

    @Test
    void aBodyDelimiterLaterInTheBodyIsPlainMarkdown() {
        SkillDefinition skill = SkillParser.parse("---\nname: a\n---\nabove\n---\nbelow\n", "a");

        assertThat(skill.protocol()).isEqualTo("above\n---\nbelow");
    }

    @Test
    void missingFrontMatterIsAnError() {
        assertParseError("# Just a protocol\n", "missing front matter");
        assertParseError("\n---\nname: a\n---\nbody", "missing front matter");
    }

    @Test
    void unclosedFrontMatterIsAnError() {
        assertParseError("---\nname: a\nbody", "front matter is not closed");
        assertParseError("---", "front matter is not closed");
    }

    @Test
    void missingOrBadNameIsAnError() {
        assertParseError("---\nversion: 1.0.0\n---\nbody", "missing name in the front matter");
        assertParseError("---\n---\nbody", "missing name in the front matter");
        assertParseError("---\nname: 42\n---\nbody", "name must be a non-empty string, got: 42");
        assertParseError("---\nname: ''\n---\nbody", "name must be a non-empty string");
        assertParseError("---\nname: my skill\n---\nbody", "name \"my skill\" may only use letters, digits, _ and -");
    }

    @Test
    void permissionsMustBeAListOfStrings() {
        assertParseError("---\nname: a\npermissions: git:*\n---\nbody", "permissions must be a list");
        assertParseError("---\nname: a\npermissions:\n  - 7\n---\nbody",
                "permissions entries must be non-empty strings");
        assertParseError("---\nname: a\nrequired_refs: x.md\n---\nbody", "required_refs must be a list");
    }

    @Test
    void aMalformedPermissionIsAnErrorNamingTheFileAndThePermission() {
        assertThatThrownBy(() -> SkillParser.parse("---\nname: a\npermissions:\n  - git:*\n  - a::b\n---\nbody",
                "skills/a/SKILL.md"))
                .isInstanceOf(SkillFormatException.class)
                .hasMessage("skills/a/SKILL.md: invalid permission \"a::b\": ':' may appear once, between service "
                        + "and method");
    }

    @Test
    void aNumericVersionMustBeQuoted() {
        assertParseError("---\nname: a\nversion: 1.10\n---\nbody", "version must be a string (quote it), got: 1.1");
    }

    @Test
    void duplicateKeysAreRefused() {
        assertParseError("---\nname: a\npermissions:\n  - web.search\npermissions:\n  - \"*\"\n---\nbody",
                "front matter is not valid YAML");
    }

    @Test
    void invalidYamlAndNonMappingsAreErrors() {
        assertParseError("---\nname: a\npermissions:\n  - *\n---\nbody", "front matter is not valid YAML");
        assertParseError("---\n- a\n- b\n---\nbody", "front matter must be a YAML mapping");
    }

    @Test
    void aYamlAliasBombIsRefusedWithoutBeingExpanded() {
        StringBuilder bomb = new StringBuilder("---\nname: bomb\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        char previous = 'a';
        for (char level = 'b'; level <= 'j'; level++) {
            bomb.append(level).append(": &").append(level).append(" [");
            for (int i = 0; i < 9; i++) {
                bomb.append(i == 0 ? "" : ",").append('*').append(previous);
            }
            bomb.append("]\n");
            previous = level;
        }
        bomb.append("---\nBe brief.\n");
        assertParseError(bomb.toString(), "front matter is not valid YAML");
    }

    @Test
    void aValueWithSharedAliasesIsDescribedNotPrinted() {
        // Few enough aliases to load; printing permissions' value whole would copy the long string 4^3 times.
        String shared = "---\nname: wide\nx: &x [\"" + "w".repeat(1000) + "\"]\n"
                + "y: &y [*x,*x,*x,*x]\nz: &z [*y,*y,*y,*y]\n"
                + "permissions: {deep: [*z,*z,*z,*z]}\n---\nBe brief.\n";
        assertParseError(shared, "permissions must be a list ('- item' lines), got: a mapping of 1 keys");
    }

    @Test
    void deepNestingIsRefused() {
        assertParseError("---\nname: deep\nx: " + "[".repeat(100) + "]".repeat(100) + "\n---\nBe brief.\n",
                "front matter is not valid YAML");
    }

    @Test
    void aBlankProtocolIsAnError() {
        assertParseError("---\nname: a\n---\n\n  \n", "no protocol");
        assertParseError("---\nname: a\n---", "no protocol");
    }

    @Test
    void aDirectoryLoadsEverySkillAndChecksNames(@TempDir Path root) throws IOException {
        write(root.resolve("git/SKILL.md"), GIT);
        write(root.resolve("writer/SKILL.md"), "---\nname: writer\n---\nWrite well.\n");
        write(root.resolve("README.md"), "not a skill directory, ignored");

        assertThat(SkillParser.parseDirectory(root)).containsOnlyKeys("git", "writer");

        write(root.resolve("other/SKILL.md"), "---\nname: elsewhere\n---\nbody\n");
        assertThatThrownBy(() -> SkillParser.parseDirectory(root))
                .isInstanceOf(SkillFormatException.class)
                .hasMessageContaining("name \"elsewhere\" differs from its directory \"other\"");
    }

    @Test
    void aSkillDirectoryWithoutSkillMdIsAnError(@TempDir Path root) throws IOException {
        write(root.resolve("git/skill.md"), GIT);

        assertThatThrownBy(() -> SkillParser.parseDirectory(root))
                .isInstanceOf(SkillFormatException.class)
                .hasMessageContaining("no SKILL.md in this skill directory");
    }

    @Test
    void theShippedSkillsAllParse() throws IOException {
        Path root = Path.of("skills");
        Map<String, SkillDefinition> skills = SkillParser.parseDirectory(root);

        assertThat(skills).containsOnlyKeys("git", "inspector", "researcher", "shell-operator", "writer");
        assertThat(skills.get("git").permissions()).hasToString("git:*, filesystem:read");
        assertThat(skills.get("researcher").permissions())
                .hasToString("web:search, web:fetch, filesystem:read, memory:*");
        assertThat(skills.get("shell-operator").permissions()).hasToString("shell:run, filesystem:*");
        assertThat(skills.get("writer").permissions()).hasToString("filesystem:read, filesystem:write");
        assertThat(skills.get("inspector").permissions().allows("mcp__workspace__list_files")).isTrue();
        assertThat(skills.get("inspector").retrySafe().allows("mcp__workspace__read_file"))
                .as("read-only tools may run again after a crash").isTrue();
        assertThat(skills.get("shell-operator").retrySafe().allows("shell.run")).isFalse();
        assertThat(skills.values()).anySatisfy(skill ->
                assertThat(skill.protocol()).contains("{{ skill.name }}").contains("{{ skill.version }}"));
        for (SkillDefinition skill : skills.values()) {
            assertThat(skill.version()).as(skill.name()).isNotEmpty();
            assertThat(skill.description()).as(skill.name()).isNotEmpty();
            for (String ref : skill.requiredRefs()) {
                assertThat(root.resolve(skill.name()).resolve(ref)).as(skill.name() + " ref").isRegularFile();
            }
        }
    }

    private static void assertParseError(String content, String message) {
        assertThatThrownBy(() -> SkillParser.parse(content, "test/SKILL.md"))
                .isInstanceOf(SkillFormatException.class)
                .hasMessageStartingWith("test/SKILL.md: ")
                .hasMessageContaining(message);
    }

    private static void write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }
}
