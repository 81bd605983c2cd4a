package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;

/** What `cognition persona load` refuses before it writes; what it writes is checked in GovernedRecordsIT. */
class PersonaCommandTest {

    @Test
    void aFileWithBadLinesIsRefusedWithEachLineAndPathAndNothingIsSent(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("personas.jsonl"), String.join("\n",
                "{\"name\":\"mentor\",\"role\":\"You are a patient mentor.\"}",
                "",
                "{\"name\":\"coach\",\"rol\":\"You are a coach.\"}",
                "{\"name\":\"critic\",\"role\":\"  \"}",
                "{\"name\":\"mentor\",\"role\":\"You are another mentor.\"}",
                "{\"name\":\"a b\",\"role\":\"You are spaced.\"}"));

        // No broker listens on port 1: a command that tried to send would fail on that, not on the lines.
        Cli load = Cli.run("persona", "load", "--file", file.toString(), "--bootstrap-servers", "localhost:1");

        assertThat(load.exitCode()).isEqualTo(1);
        assertThat(load.err()).contains(
                "line 3: $.rol: unknown field",
                "line 4: $: persona critic has no role: say who the model plays",
                "line 5: $.name: persona mentor is on line 1 already",
                "line 6: $: persona name 'a b' must be 1-64 letters, digits, '_' or '-'",
                "has 4 bad lines; nothing was written");
    }
}
