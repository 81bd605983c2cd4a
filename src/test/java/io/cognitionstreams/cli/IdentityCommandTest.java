package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;

/** `cognition identity set` as the docs name it; what it writes is checked against a broker in GovernedRecordsIT. */
class IdentityCommandTest {

    @Test
    void anUngovernedVersionIsRefusedBeforeAnythingIsSent(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("identity.txt"), "I am Gaia. I never run shell commands unasked.");

        // No broker listens on port 1: a command that tried to send would fail on that, not on governance.
        Cli set = Cli.run("identity", "set", "--file", text.toString(), "--author", "prime", "--version", "2",
                "--bootstrap-servers", "localhost:1");

        assertThat(set.exitCode()).isEqualTo(2);
        assertThat(set.err()).contains("identity version 2 authored by [prime] is not governed");
    }

    @Test
    void identityAloneSaysWhatItCanDo() {
        Cli bare = Cli.run("identity");

        assertThat(bare.exitCode()).isEqualTo(2);
        assertThat(bare.err()).contains("say what to do: set");
    }
}
