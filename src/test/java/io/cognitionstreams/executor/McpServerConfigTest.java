package io.cognitionstreams.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class McpServerConfigTest {

    @TempDir
    Path dir;

    private Path file(String json) throws Exception {
        Path file = dir.resolve("mcp.json");
        Files.writeString(file, json);
        return file;
    }

    @Test
    void aCommandSpecIsSplitOnWhitespace() {
        McpServerConfig git = McpServerConfig.parse("git= uvx  mcp-server-git\t--repository . ");

        assertThat(git.name()).isEqualTo("git");
        assertThat(git.command()).containsExactly("uvx", "mcp-server-git", "--repository", ".");
        assertThat(git.env()).isEmpty();
        assertThat(git.url()).isEmpty();
        assertThat(git.stdio()).isTrue();
        assertThat(git.describe()).isEqualTo("uvx mcp-server-git --repository .");
    }

    @Test
    void aUrlSpecIsAnHttpServer() {
        McpServerConfig docs = McpServerConfig.parse("docs=https://mcp.example.com/mcp?team=a=b");

        assertThat(docs.command()).isEmpty();
        assertThat(docs.url()).contains(URI.create("https://mcp.example.com/mcp?team=a=b"));
        assertThat(docs.stdio()).isFalse();
        assertThat(docs.describe()).isEqualTo("https://mcp.example.com/mcp?team=a=b");
    }

    @Test
    void theNameIsWhatComesBeforeTheFirstEquals() {
        // An argument may hold '=' itself.
        assertThat(McpServerConfig.parse("fs=npx server --root=/tmp").command())
                .containsExactly("npx", "server", "--root=/tmp");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "git", "=uvx mcp-server-git", "git=", "git=   ", "git=\t"})
    void aSpecWithoutANameOrATargetIsRefusedWithItsForm(String spec) {
        assertThatThrownBy(() -> McpServerConfig.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NAME=COMMAND [ARG...] or NAME=URL");
    }

    @ParameterizedTest
    @ValueSource(strings = {"my__git", "_git", "git_", "my.git", "my git", "gït", "git:x", "mcp__git", " "})
    void aNameThatWouldMakeToolNamesAmbiguousIsRefused(String name) {
        assertThatThrownBy(() -> McpServerConfig.parse(name + "=uvx mcp-server-git"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid MCP server name");
    }

    @Test
    void namesOfLettersDigitsUnderscoresAndHyphensAreFine() {
        assertThat(McpServerConfig.parse("brave-search_2=npx x").name()).isEqualTo("brave-search_2");
        assertThat(McpServerConfig.parse(" git =uvx x").name()).isEqualTo("git");
    }

    @Test
    void theShellRunnersNameIsNotAnMcpServersName() {
        // shell.run, shell:run and mcp__shell__run all go to the shell runner: such a server's tools would never run.
        assertThatThrownBy(() -> McpServerConfig.parse("shell=uvx mcp-shell"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"shell\"")
                .hasMessageContaining("shell runner");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://", "https://exa mple.com/mcp", "http://[::1"})
    void aUrlThatDoesNotParseIsRefusedNamingTheServer(String url) {
        assertThatThrownBy(() -> McpServerConfig.parse("docs=" + url))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MCP server docs")
                .hasMessageContaining(url);
    }

    @Test
    void aServerNeedsACommandOrAUrlButNotBoth() {
        assertThatThrownBy(() -> new McpServerConfig("x", List.of(), Map.of(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("MCP server x needs either a command or a url");
        assertThatThrownBy(() -> new McpServerConfig("x", List.of("uvx"), Map.of(),
                Optional.of(URI.create("http://localhost/mcp"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("MCP server x needs either a command or a url");
    }

    @Test
    void onlyHttpAndHttpsUrlsAreServers() {
        for (String url : new String[] {"ftp://example.com/mcp", "file:///etc/passwd", "localhost/mcp"}) {
            assertThatThrownBy(() -> new McpServerConfig("x", List.of(), Map.of(), Optional.of(URI.create(url))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the url must be http or https, was " + url);
        }
    }

    @Test
    void theConfigIsACopy() {
        List<String> command = new java.util.ArrayList<>(List.of("uvx", "x"));
        McpServerConfig config = new McpServerConfig("x", command, Map.of(), Optional.empty());

        command.add("--evil");

        assertThat(config.command()).containsExactly("uvx", "x");
    }

    @Test
    void aClaudeDesktopConfigFileIsRead() throws Exception {
        Path file = file("""
                {
                  "mcpServers": {
                    "filesystem": {
                      "command": "npx",
                      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/My Documents"],
                      "env": {"LOG_LEVEL": "debug"}
                    },
                    "git": {"command": "uvx", "args": ["mcp-server-git"]},
                    "remote": {"url": "https://mcp.example.com/mcp"}
                  },
                  "globalShortcut": "Ctrl+Space"
                }
                """);

        List<McpServerConfig> servers = McpServerConfig.readFile(file);

        assertThat(servers).extracting(McpServerConfig::name).containsExactly("filesystem", "git", "remote");
        assertThat(servers.get(0).command()).containsExactly("npx", "-y", "@modelcontextprotocol/server-filesystem",
                "/Users/me/My Documents");
        assertThat(servers.get(0).env()).containsExactly(Map.entry("LOG_LEVEL", "debug"));
        assertThat(servers.get(1).command()).containsExactly("uvx", "mcp-server-git");
        assertThat(servers.get(1).env()).isEmpty();
        assertThat(servers.get(2).url()).contains(URI.create("https://mcp.example.com/mcp"));
    }

    @Test
    void anEmptyServerListIsNoServers() throws Exception {
        assertThat(McpServerConfig.readFile(file("{\"mcpServers\": {}}"))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "[]", "null", "", "{\"mcpServers\": []}", "{\"mcpServers\": \"git\"}",
            "{\"servers\": {}}"})
    void aFileWithoutAnMcpServersObjectIsRefused(String json) throws Exception {
        Path file = file(json);

        assertThatThrownBy(() -> McpServerConfig.readFile(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(file + ": no \"mcpServers\" object");
    }

    @Test
    void aFileThatIsNotJsonOrIsMissingIsRefusedByName() throws Exception {
        Path broken = file("{\"mcpServers\": {\"git\": {\"command\": \"uvx\",}}");

        assertThatThrownBy(() -> McpServerConfig.readFile(broken))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot read the MCP config " + broken);
        assertThatThrownBy(() -> McpServerConfig.readFile(dir.resolve("missing.json")))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot read the MCP config");
    }

    @Test
    void aServerEntryWithoutAUsableCommandOrUrlIsRefusedNamingIt() throws Exception {
        for (String server : new String[] {"{}", "{\"command\": \"\"}", "{\"command\": \"  \"}",
                "{\"command\": [\"uvx\"]}", "{\"command\": null}", "\"uvx mcp-server-git\"", "{\"url\": 8080}",
                "{\"url\": \"\"}"}) {
            Path file = file("{\"mcpServers\": {\"git\": " + server + "}}");

            assertThatThrownBy(() -> McpServerConfig.readFile(file))
                    .as(server)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file + ": server git: ")
                    .hasMessageContaining("must be a non-empty string");
        }
    }

    @Test
    void argsAndEnvMustBeStringsNotSilentlyTurnedIntoOtherArguments() throws Exception {
        // An object or null turned into "" or "null" would start the server with arguments nobody wrote.
        for (String server : new String[] {"{\"command\": \"uvx\", \"args\": \"mcp-server-git\"}",
                "{\"command\": \"uvx\", \"args\": [\"x\", {\"a\": 1}]}",
                "{\"command\": \"uvx\", \"args\": [\"x\", null]}",
                "{\"command\": \"uvx\", \"args\": [[\"x\"]]}"}) {
            Path file = file("{\"mcpServers\": {\"git\": " + server + "}}");

            assertThatThrownBy(() -> McpServerConfig.readFile(file))
                    .as(server)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file + ": server git: \"args\" must be an array of strings");
        }
        for (String server : new String[] {"{\"command\": \"uvx\", \"env\": \"A=1\"}",
                "{\"command\": \"uvx\", \"env\": [\"A=1\"]}",
                "{\"command\": \"uvx\", \"env\": {\"A\": null}}",
                "{\"command\": \"uvx\", \"env\": {\"A\": {\"b\": 1}}}"}) {
            Path file = file("{\"mcpServers\": {\"git\": " + server + "}}");

            assertThatThrownBy(() -> McpServerConfig.readFile(file))
                    .as(server)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file + ": server git: \"env\" must be an object of strings");
        }
        Path secret = file("{\"mcpServers\": {\"git\": {\"command\": \"uvx\", \"env\": {\"TOKEN\": 31415926}}}}");
        assertThatThrownBy(() -> McpServerConfig.readFile(secret))
                .as("an env value may be a secret, and errors are logged")
                .hasMessageContaining("TOKEN is not a string")
                .hasMessageNotContaining("31415926");
    }

    @Test
    void aBadServerNameOrUrlInTheFileIsRefused() throws Exception {
        Path badName = file("{\"mcpServers\": {\"my__git\": {\"command\": \"uvx\"}}}");
        assertThatThrownBy(() -> McpServerConfig.readFile(badName))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid MCP server name \"my__git\"");

        Path badUrl = file("{\"mcpServers\": {\"docs\": {\"url\": \"https://exa mple.com\"}}}");
        assertThatThrownBy(() -> McpServerConfig.readFile(badUrl))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MCP server docs")
                .hasMessageContaining("https://exa mple.com");

        Path ftp = file("{\"mcpServers\": {\"docs\": {\"url\": \"ftp://example.com\"}}}");
        assertThatThrownBy(() -> McpServerConfig.readFile(ftp))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be http or https");
    }
}
