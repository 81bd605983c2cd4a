package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.testing.Cli;

/** What `cognition council vote` refuses before it sends anything (no broker here: it would fail to reach one). */
class CouncilVoteCommandTest {

    private static final String NOWHERE = "127.0.0.1:1";

    @Test
    void aReasonOfTenMegabytesIsRefusedBeforeAnythingIsSent() {
        Cli vote = Cli.run("council", "vote", "--proposal", "call-1", "--yes", "--as", "operator", "--reason",
                "x".repeat(10 * 1024 * 1024), "--bootstrap-servers", NOWHERE);

        assertThat(vote.exitCode()).isEqualTo(2);
        assertThat(vote.err()).contains("--reason has 10485760 characters, over the council's limit of 65536");
        assertThat(vote.out()).isEmpty();
    }

    @Test
    void aVoteIsYesNoOrAbstainAndExactlyOne() {
        Cli none = Cli.run("council", "vote", "--proposal", "call-1", "--as", "operator", "--bootstrap-servers",
                NOWHERE);
        Cli both = Cli.run("council", "vote", "--proposal", "call-1", "--yes", "--no", "--as", "operator",
                "--bootstrap-servers", NOWHERE);

        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("Missing required argument");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("mutually exclusive");
    }
}
