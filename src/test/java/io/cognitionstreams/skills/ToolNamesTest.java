package io.cognitionstreams.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ToolNamesTest {

    @ParameterizedTest(name = "{0} is {1} : {2}")
    @CsvSource({
            "git.status, git, status",
            "git:status, git, status",
            "mcp__git__status, git, status",
            "git.remote.add, git, remote.add",
            "git:remote.add, git, remote.add",
            "mcp__git__remote.add, git, remote.add",
            "mcp__brave-search__web_search2, brave-search, web_search2",
            "mcp__my_server__list-files, my_server, list-files",
            "mcp__db__read__rows, db, read__rows",
            "mcp__git___status, git, _status",
            "mcp___git__status, _git, status",
            "my__svc:run, my__svc, run",
            "mcp.run, mcp, run",
            "mcp_:run, mcp_, run"})
    void theThreeSpellingsSplitIntoServiceAndMethod(String tool, String service, String method) {
        assertThat(ToolNames.split(tool)).contains(new ToolName(service, method));
        assertThat(ToolNames.isWellFormed(tool)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t\n", "\u00a0", "run", "Bash", "git", "mcp__", "mcp____x", "mcp__git__",
            "mcp__git", "mcp__git_", "mcp__git__a:b", "mcp__git:status", "mcp__git.status", "mcp__g.it__x",
            "mcp__git__.x", "mcp__git__x.", "mcp__git__x..y", "mcp__git__sta tus", "MCP__git", "git.", ".git",
            "git..status", "git.remote:add", "git:remote:add", " git.status", "git.status ", "git/status",
            "gït.status", "*", "git.*"})
    void anythingElseIsNotWellFormedAndDoesNotSplit(String tool) {
        assertThat(ToolNames.split(tool)).isEmpty();
        assertThat(ToolNames.isWellFormed(tool)).isFalse();
    }

    @Test
    void nullIsNeitherWellFormedNorSplit() {
        assertThat(ToolNames.split(null)).isEmpty();
        assertThat(ToolNames.isWellFormed(null)).isFalse();
        assertThat(ToolNames.isBlank(null)).isTrue();
    }

    @Test
    void blankMeansNoVisibleCharacterAtAll() {
        assertThat(ToolNames.isBlank("")).isTrue();
        assertThat(ToolNames.isBlank(" \t\r\n")).isTrue();
        assertThat(ToolNames.isBlank("\u00a0\u2007\u202f")).as("no-break spaces").isTrue();
        assertThat(ToolNames.isBlank("run")).isFalse();
        assertThat(ToolNames.isBlank(" x ")).isFalse();
    }

    @Test
    void theCanonicalSpellingSplitsBackIntoTheSameName() {
        for (String tool : new String[] {"mcp__git__remote.add", "git.remote.add", "my__svc.run", "mcp__a___b"}) {
            ToolName name = ToolNames.split(tool).orElseThrow();

            assertThat(ToolNames.split(name.canonical())).contains(name);
        }
        assertThat(new ToolName("git", "remote.add").canonical()).isEqualTo("git:remote.add");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"''|status", "git|''", "git.x|status", "git|re..mote", "git|a:b",
            "mcp__git|status", "' git'|status", "git|.status"})
    void aToolNameIsOnlyMadeOfWellFormedParts(String service, String method) {
        assertThatThrownBy(() -> new ToolName(service, method))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a tool name");
    }

    @Test
    void theProblemOfANameThatIsNotWellFormedIsNamed() {
        assertThat(ToolNames.problem(" ")).isEqualTo("it is blank");
        assertThat(ToolNames.problem("run")).isEqualTo("it has no service part");
        assertThat(ToolNames.problem("mcp__git")).contains("mcp__SERVER__TOOL");
        assertThat(ToolNames.problem("git..status")).contains("service.method or service:method");
        assertThat(ToolNames.problem("run now")).contains("service.method or service:method");
        assertThat(ToolNames.problem("git.status")).isEqualTo("it is well-formed");
    }
}
