package io.cognitionstreams.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class ExecuteLineTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The command a shell.run line carries, read back from its JSON. */
    private static String command(ExecuteLine line) throws Exception {
        assertThat(line.tool()).isEqualTo(OutputRouter.SHELL_TOOL);
        JsonNode arguments = JSON.readTree(line.arguments());
        assertThat(arguments.size()).isEqualTo(1);
        return arguments.get("command").textValue();
    }

    @Test
    void anMcpToolNameWithArgumentsCallsThatToolWithThemAsWritten() {
        assertThat(ExecuteLine.parse("mcp__workspace__list_files {\"path\": \"docs\"}"))
                .isEqualTo(new ExecuteLine("mcp__workspace__list_files", "{\"path\": \"docs\"}"));
    }

    @Test
    void anMcpToolNameAloneCallsItWithNoArguments() {
        assertThat(ExecuteLine.parse("mcp__git__status")).isEqualTo(new ExecuteLine("mcp__git__status", "{}"));
        assertThat(ExecuteLine.parse("  mcp__git__status \t\n")).isEqualTo(new ExecuteLine("mcp__git__status", "{}"));
    }

    @Test
    void whitespaceAroundAndBetweenIsNotPartOfTheArguments() {
        assertThat(ExecuteLine.parse("\n  mcp__fs__read\t {\"path\": \"a b\"}  \n"))
                .isEqualTo(new ExecuteLine("mcp__fs__read", "{\"path\": \"a b\"}"));
        assertThat(ExecuteLine.parse("mcp__fs__write\n{\n  \"path\": \"a\",\n  \"text\": \"x\\ny\"\n}"))
                .as("arguments over several lines")
                .isEqualTo(new ExecuteLine("mcp__fs__write", "{\n  \"path\": \"a\",\n  \"text\": \"x\\ny\"\n}"));
    }

    @Test
    void argumentsRightAfterTheNameAreTheArguments() {
        assertThat(ExecuteLine.parse("mcp__fs__read{\"path\": \"a\"}"))
                .isEqualTo(new ExecuteLine("mcp__fs__read", "{\"path\": \"a\"}"));
    }

    @Test
    void argumentsThatAreNotJsonArePassedOnForTheExecutorToRefuse() {
        // The model then reads why in the result; routing does not judge them.
        assertThat(ExecuteLine.parse("mcp__fs__read path=docs"))
                .isEqualTo(new ExecuteLine("mcp__fs__read", "path=docs"));
        assertThat(ExecuteLine.parse("mcp__fs__read {\"path\": "))
                .isEqualTo(new ExecuteLine("mcp__fs__read", "{\"path\":"));
        assertThat(ExecuteLine.parse("mcp__git__status; rm -rf ~"))
                .as("never a shell command: a command never starts with mcp__")
                .isEqualTo(new ExecuteLine("mcp__git__status", "; rm -rf ~"));
    }

    @Test
    void theToolNameIsTakenAsWrittenForTheGatekeeperToJudge() {
        assertThat(ExecuteLine.parse("mcp__git__remote.add {}").tool()).isEqualTo("mcp__git__remote.add");
        assertThat(ExecuteLine.parse("mcp__git {}").tool()).isEqualTo("mcp__git");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ls -la", "git status", "git.status", "shell.run {\"command\": \"ls\"}",
            "MCP__git__status", "echo mcp__git__status {}", "./mcp__tool", "mcp_git_status"})
    void anythingElseIsAShellCommandAsWritten(String block) throws Exception {
        assertThat(command(ExecuteLine.parse(block))).isEqualTo(block);
    }

    @Test
    void aShellCommandSurvivesQuotesBackslashesNewlinesAndControlCharacters() throws Exception {
        String block = "printf '%s\\n' \"a\\\"b\" \\\n  | grep -v '}' # \u0000\u001b[31m\u2028 ünï";

        assertThat(command(ExecuteLine.parse(block))).isEqualTo(block);
    }

    @Test
    void aShellCommandKeepsItsSurroundingWhitespace() throws Exception {
        assertThat(command(ExecuteLine.parse("  ls\n"))).isEqualTo("  ls\n");
    }
}
