package io.cognitionstreams.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PermissionTest {

    @Test
    void theThreeFormsParseToTheirCanonicalSpelling() {
        assertThat(Permission.parse("*")).isEqualTo(new Permission.All());
        assertThat(Permission.parse("filesystem:*")).isEqualTo(new Permission.Service("filesystem"));
        assertThat(Permission.parse("filesystem.*")).isEqualTo(new Permission.Service("filesystem"));
        assertThat(Permission.parse("web.search")).isEqualTo(new Permission.Method("web", "search"));
        assertThat(Permission.parse("git:remote.add").canonical()).isEqualTo("git:remote.add");
        assertThat(Permission.parse("git.*").canonical()).isEqualTo("git:*");
    }

    @Test
    void colonAndDotAreTheSamePermission() {
        assertThat(Permission.parse("web.search")).isEqualTo(Permission.parse("web:search"));
        assertThat(Permission.parse("git.remote.add")).isEqualTo(Permission.parse("git:remote.add"));
    }

    @Test
    void surroundingWhitespaceIsDroppedAndCaseIsKept() {
        assertThat(Permission.parse("  shell:run\t")).isEqualTo(new Permission.Method("shell", "run"));
        assertThat(Permission.parse("Shell:Run")).isEqualTo(new Permission.Method("Shell", "Run"))
                .isNotEqualTo(Permission.parse("shell:run"));
    }

    @Test
    void servicesNamedLikeMcpButWithoutItsPrefixAreOrdinary() {
        assertThat(Permission.parse("mcp:*")).isEqualTo(new Permission.Service("mcp"));
        assertThat(Permission.parse("mcp_.run")).isEqualTo(new Permission.Method("mcp_", "run"));
    }

    @Test
    void namesMayUseDigitsUnderscoresAndHyphens() {
        assertThat(Permission.parse("brave-search.web_search2")).isEqualTo(
                new Permission.Method("brave-search", "web_search2"));
    }

    @ParameterizedTest(name = "\"{0}\" is refused: {1}")
    @CsvSource(delimiter = '|', value = {
            "''|it is empty",
            "'   '|it is empty",
            ":*|the service is empty",
            ".read|the service is empty",
            "a::b|':' may appear once",
            "a:b:c|':' may appear once",
            "*:*|write * alone",
            "*.read|the service cannot be a wildcard",
            "filesystem|a bare service is not a tool; write filesystem:* for all of its methods",
            "**|'*' is not allowed",
            "a:|the method or one of its dotted segments is empty",
            "a.|the method or one of its dotted segments is empty",
            "git:remote..add|the method or one of its dotted segments is empty",
            "git:remote.|the method or one of its dotted segments is empty",
            "git.remote:*|a wildcard stands for a whole method only (git:*)",
            "git.remote.*|a wildcard stands for a whole method only (git:*)",
            "git:re*|a wildcard stands for a whole method only",
            "'file system:read'|' ' is not allowed",
            "'shell:run now'|' ' is not allowed",
            "shell/x:run|'/' is not allowed",
            "fïlesystem:read|'ï' is not allowed",
            "mcp__git__status|mcp__SERVER__TOOL is how an MCP client spells a tool call, not a permission; write "
                    + "SERVER:TOOL or SERVER:* (for mcp__git__status: git:status or git:*)",
            "mcp__git__*|mcp__SERVER__TOOL is how an MCP client spells a tool call",
            "mcp__git|mcp__SERVER__TOOL is how an MCP client spells a tool call",
            "mcp__git:*|mcp__SERVER__TOOL is how an MCP client spells a tool call",
            "' mcp__git.status '|mcp__SERVER__TOOL is how an MCP client spells a tool call"})
    void malformedPermissionsAreRefusedNamingTheString(String permission, String why) {
        assertThatThrownBy(() -> Permission.parse(permission))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid permission \"" + permission + "\": ")
                .hasMessageContaining(why);
    }

    @Test
    void nullIsRefused() {
        assertThatThrownBy(() -> Permission.parse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid permission: null");
    }
}
