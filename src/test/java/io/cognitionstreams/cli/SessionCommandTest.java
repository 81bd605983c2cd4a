package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;

/** What `cognition session import` refuses before it writes; what it writes is checked in SessionImportIT. */
class SessionCommandTest {

    @Test
    void aMalformedConversationIsRefusedWithLineAndPathAndNothingIsSent(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("conversation.jsonl"), String.join("\n",
                "{\"role\":\"user\",\"content\":\"list the files\"}",
                "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"list_files\",\"arguments\":\"{}\"}}]}",
                "{\"role\":\"tool\",\"tool_call_id\":\"c2\",\"content\":\"README.md\"}",
                ""));

        // No broker listens on port 1: a command that tried to send would fail on that, not on the file.
        Cli imported = Cli.run("session", "import", "--session", "s1", "--file", file.toString(),
                "--bootstrap-servers", "localhost:1");

        assertThat(imported.exitCode()).isEqualTo(1);
        assertThat(imported.err()).contains(
                "line 3: $.tool_call_id: no call 'c2' is waiting for its result here",
                "line 2: $.tool_calls[0].id: call 'c1' gets no tool message before the end of the file",
                "has 2 problems; nothing was written");
    }
}
