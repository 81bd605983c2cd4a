package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/** The README's run command, twice on one data directory: the second run finds the first run's data. */
class RunCommandIT {

    @TempDir
    Path dataDir;

    @Test
    void theDemoRunsEndToEndAndARestartKeepsTopicsAndCommittedData() throws IOException {
        Cli first = runDemo();
        Cli second = runDemo();

        for (Cli run : new Cli[] {first, second}) {
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.err()).contains("embedded Kafka broker at 127.0.0.1:");
            assertThat(run.out()).contains("sent 5 demo requests and 1 malformed record to cognition.requests")
                    .containsPattern("channel\\.cli_chat\\s+demo-deploy\\s+1/\\d+ PLAN")
                    .containsPattern("channel\\.web_chat\\s+demo-triage\\s+\\d+/\\d+ RESPONSE")
                    .containsPattern("tool\\.calls\\s+demo-cleanup\\s+shell\\.run")
                    .containsPattern("tool\\.decisions\\s+demo-deploy\\s+DENIED shell\\.run")
                    // the council decides the shell call: a proposal, two role votes, the decision, then the run
                    .containsPattern("tool\\.decisions\\s+demo-cleanup\\s+PENDING shell\\.run: waiting for council "
                            + "default")
                    .containsPattern("council\\.messages\\s+default\\s+PROPOSAL call-\\w+ from gatekeeper \\(risk "
                            + "MED\\): arguments \\(redacted for display\\): du -sh")
                    .containsPattern("council\\.messages\\s+default\\s+VOTE prime YES on call-")
                    .containsPattern("council\\.messages\\s+default\\s+VOTE lite YES on call-")
                    .containsPattern("council\\.decisions\\s+default\\s+APPROVED call-\\w+ \\(2 yes, 0 no")
                    .containsPattern("tool\\.decisions\\s+demo-cleanup\\s+APPROVED shell\\.run: approved by council "
                            + "default")
                    .containsPattern("channel\\.shell\\s+demo-cleanup\\s+\\d+/\\d+ EXECUTE\\s+du -sh")
                    .containsPattern("cognition\\.dlq\\s+cognition\\.requests-\\d+@\\d+ DESERIALIZATION")
                    // the tool loop: a real MCP call on the demo's workspace server, then the turn it starts
                    .containsPattern("tool\\.decisions\\s+demo-inspect\\s+APPROVED mcp__workspace__list_files")
                    .containsPattern("tool\\.results\\s+demo-inspect\\s+SUCCEEDED mcp__workspace__list_files by "
                            + "mcp:workspace: .*README\\.md")
                    .containsPattern("channel\\.cli_chat\\s+demo-inspect\\s+1/\\d+ RESPONSE\\s+The tool results are in");
            assertThat(run.out()).doesNotContainPattern("channel\\.(web|discord)_chat\\s+\\S+\\s+\\S+ PLAN");
        }
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(
                new BrokerSettings(dataDir.resolve("kafka"), 0, 0, Duration.ofSeconds(60)))) {
            Cli tail = Cli.run("tail", "--topic", Topics.channelTopic(Channel.CLI_CHAT), "--bootstrap-servers",
                    broker.bootstrapServers(), "--timeout", "5s");
            long deployPlans = tail.out().lines()
                    .filter(line -> line.contains("\"session_id\":\"demo-deploy\"") && line.contains("\"PLAN\""))
                    .count();
            assertThat(deployPlans).as("one PLAN per run, both kept across the restart").isEqualTo(2);
        }
    }

    private Cli runDemo() throws IOException {
        return Cli.run("run", "--data-dir", dataDir.toString(), "--port", String.valueOf(freePort()),
                "--controller-port", String.valueOf(freePort()), "--demo", "--exit-after-demo",
                "--demo-timeout", "240s");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
