package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * The README's run command, twice on one data directory: the second run finds the first run's data, and resumes
 * every task from the state stores the first one's clean stop left. The second one streams answers and holds sessions
 * to a token budget, which stops the inspector session's loop.
 */
class RunCommandIT {

    /** Less than any packet: the inspector session's first answer spends it. */
    private static final String TOKEN_BUDGET = "100";

    @TempDir
    Path dataDir;

    @Test
    void theDemoRunsEndToEndAndARestartKeepsTopicsAndCommittedData() throws IOException {
        Cli first = runDemo();
        Map<Path, String> storesAfterTheStop = stores();
        Cli second = runDemo("--model-stream", "--session-token-budget", TOKEN_BUDGET);

        // A clean stop leaves every task resumable: the restart opens the stores it left, not fresh ones that a task
        // wiped as corrupted and restored from its changelogs would have (each RocksDB instance's IDENTITY is made
        // when it is created).
        assertThat(storesAfterTheStop).as("the stores the first run left").isNotEmpty();
        assertThat(stores()).as("the stores after the restart").containsAllEntriesOf(storesAfterTheStop);

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
                    // Dockerfile: in a git worktree .git is a longer line, and README.md falls past the cut.
                    .containsPattern("tool\\.results\\s+demo-inspect\\s+SUCCEEDED mcp__workspace__list_files by "
                            + "mcp:workspace: .*Dockerfile");
            assertThat(run.out()).doesNotContainPattern("channel\\.(web|discord)_chat\\s+\\S+\\s+\\S+ PLAN");
        }
        assertThat(first.out())
                .containsPattern("channel\\.cli_chat\\s+demo-inspect\\s+1/\\d+ RESPONSE\\s+The tool results are in");
        // The budget stops the session's loop: no turn of its own after its tool result, one escalation.
        assertThat(second.out())
                .containsPattern("session\\.usage\\s+demo-inspect\\s+stopped: it has spent its token budget of 100")
                .doesNotContainPattern("channel\\.cli_chat\\s+demo-inspect\\s+1/\\d+ RESPONSE\\s+The tool results");
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(
                new BrokerSettings(dataDir.resolve("kafka"), 0, 0, Duration.ofSeconds(60)))) {
            Cli tail = Cli.run("tail", "--topic", Topics.channelTopic(Channel.CLI_CHAT), "--bootstrap-servers",
                    broker.bootstrapServers(), "--timeout", "5s");
            long deployPlans = tail.out().lines()
                    .filter(line -> line.contains("\"session_id\":\"demo-deploy\"") && line.contains("\"PLAN\""))
                    .count();
            assertThat(deployPlans).as("one PLAN per run, both kept across the restart").isEqualTo(2);

            String bootstrap = broker.bootstrapServers();
            // The second start wrote no skill or tool again: they were unchanged, and every global store would read
            // each copy at every start until compaction.
            for (String governed : List.of(Topics.COGNITION_SKILLS, Topics.COGNITION_TOOLS)) {
                List<String> records = Cli.run("tail", "--topic", governed, "--bootstrap-servers", bootstrap,
                        "--timeout", "2s").out().lines().filter(line -> line.contains("\"name\"")).toList();
                assertThat(records).as("each of %s's records written once over two starts", governed).isNotEmpty()
                        .hasSameSizeAs(records.stream().map(RunCommandIT::name).distinct().toList());
            }
            Cli usage = Cli.run("session", "show", "demo-inspect", "--bootstrap-servers", bootstrap);
            assertThat(usage.out()).containsPattern("spent: [\\d,]+ tokens \\([\\d,]+ in, [\\d,]+ out\\), 3 model calls")
                    .contains("budgets: tokens ").contains(" of 100, calls none")
                    .contains("auto-continue: stopped, the session has spent its token budget of 100");
            Cli escalations = Cli.run("tail", "--topic", Topics.COUNCIL_MESSAGES, "--bootstrap-servers", bootstrap,
                    "--timeout", "2s");
            assertThat(escalations.out().lines().filter(line -> line.contains("-session-budget"))
                    .filter(line -> line.contains("\"session_id\":\"demo-inspect\"")))
                    .as("escalated once").hasSize(1);
            // The triage answer streamed to the web chat's stream topic, its e-mail address redacted on the way.
            Cli follow = Cli.run("tail", "--topic", Topics.streamTopic(Channel.WEB_CHAT), "--follow", "--session",
                    "demo-triage", "--bootstrap-servers", bootstrap, "--timeout", "2s");
            assertThat(follow.out()).containsPattern("demo-triage  \\S+#\\d+  I could reproduce the crash")
                    .contains("[REDACTED:EMAIL]").doesNotContain("@");
        }
    }

    private static String name(String record) {
        Matcher name = Pattern.compile("\"name\":\"([^\"]+)\"").matcher(record);
        return name.find() ? name.group(1) : record;
    }

    /** Every RocksDB instance of the capabilities' tasks (global stores aside), and the identity it was created with. */
    private Map<Path, String> stores() throws IOException {
        Path streams = dataDir.resolve("streams");
        try (Stream<Path> files = Files.walk(streams)) {
            Map<Path, String> identities = new TreeMap<>();
            for (Path identity : files.filter(file -> file.getFileName().toString().equals("IDENTITY")).toList()) {
                Path store = streams.relativize(identity.getParent());
                if (!store.getName(1).toString().equals("global")) {
                    identities.put(store, Files.readString(identity).strip());
                }
            }
            return identities;
        }
    }

    private Cli runDemo(String... flags) throws IOException {
        List<String> args = new ArrayList<>(List.of("run", "--data-dir", dataDir.toString(), "--port",
                String.valueOf(freePort()), "--controller-port", String.valueOf(freePort()), "--demo",
                "--exit-after-demo", "--demo-timeout", "240s"));
        args.addAll(List.of(flags));
        return Cli.run(args.toArray(String[]::new));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
