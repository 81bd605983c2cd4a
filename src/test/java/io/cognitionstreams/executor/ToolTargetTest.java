package io.cognitionstreams.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ToolTargetTest {

    private static final Predicate<String> GIT_CONFIGURED = Set.of("git", "brave-search")::contains;

    @ParameterizedTest
    @ValueSource(strings = {"shell.run", "shell:run", "mcp__shell__run"})
    void theShellRunnersToolInAnySpellingRunsInTheShellWhenItIsOn(String tool) {
        assertThat(ToolTarget.of(tool, GIT_CONFIGURED, true)).isEqualTo(new ToolTarget.Shell());
        assertThat(ToolTarget.of(tool, GIT_CONFIGURED, false)).isEqualTo(new ToolTarget.Elsewhere());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shell.exec", "shell:run.all", "mcp__shell__rm", "Shell.run", "shell.Run"})
    void otherShellToolsAreLeftToOtherExecutors(String tool) {
        assertThat(ToolTarget.of(tool, GIT_CONFIGURED, true)).isEqualTo(new ToolTarget.Elsewhere());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mcp__git__status", "git.status", "git:status"})
    void aConfiguredServersToolRunsThereInAnySpelling(String tool) {
        assertThat(ToolTarget.of(tool, GIT_CONFIGURED, false)).isEqualTo(new ToolTarget.Mcp("git", "status"));
    }

    @Test
    void theMethodKeepsItsDotsAndUnderscores() {
        assertThat(ToolTarget.of("mcp__git__remote.add", GIT_CONFIGURED, false))
                .isEqualTo(new ToolTarget.Mcp("git", "remote.add"));
        assertThat(ToolTarget.of("mcp__brave-search__web__search", GIT_CONFIGURED, false))
                .isEqualTo(new ToolTarget.Mcp("brave-search", "web__search"));
    }

    @Test
    void anMcpSpelledToolOfAServerNobodyConfiguredIsAnsweredWithAnError() {
        ToolTarget target = ToolTarget.of("mcp__github__create_issue", GIT_CONFIGURED, true);

        assertThat(target).isEqualTo(new ToolTarget.Unserved(
                "no MCP server named github is configured on this executor"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"github.create_issue", "github:create_issue", "filesystem.write"})
    void aDottedToolOfAnUnknownServiceIsLeftToOtherExecutors(String tool) {
        // An agent's own executor, or a person reading channel.shell, may serve it: two answers would be worse.
        assertThat(ToolTarget.of(tool, GIT_CONFIGURED, true)).isEqualTo(new ToolTarget.Elsewhere());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "run", "git", "git..status", " git.status", "git.status\n", "gït.status", "*",
            "MCP__git__status"})
    void aToolNameThatIsNotWellFormedIsNeverRunHere(String tool) {
        assertThat(ToolTarget.of(tool, GIT_CONFIGURED, true)).isEqualTo(new ToolTarget.Elsewhere());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mcp__git", "mcp__git__", "mcp____status", "mcp__git__sta tus", "mcp__git:status"})
    void anMcpSpelledNameThatIsNotWellFormedIsAnsweredWithWhatIsWrong(String tool) {
        // A skill allowed "*" gets it approved; routing makes one of "EXECUTE: mcp__git {}". Unanswered, the
        // session would wait for its result.
        assertThat(ToolTarget.of(tool, server -> true, true)).isInstanceOfSatisfying(ToolTarget.Unserved.class,
                unserved -> assertThat(unserved.error())
                        .startsWith("\"" + tool + "\" is not a tool name: ")
                        .contains("mcp__SERVER__TOOL"));
    }

    @Test
    void aNullToolIsNeverRunHere() {
        assertThat(ToolTarget.of(null, server -> true, true)).isEqualTo(new ToolTarget.Elsewhere());
    }
}
