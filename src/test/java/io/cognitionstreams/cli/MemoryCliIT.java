package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.MemoryProbe;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;

/**
 * `cognition memory list|search|forget` against a running instance: two users of one scope and another scope;
 * forgetting a user's memories (a deletion request) takes them out of the running instance's prompts while the rest
 * of the scope stays, and bad input is an error that writes nothing. The first listing and the forget run as the
 * launcher runs them (a JVM of their own, its exit code); the rest through {@code CognitionCli.execute}, which
 * {@code main} exits with, since a child JVM costs seconds each.
 */
@ExtendWith(SharedBroker.class)
class MemoryCliIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String ALICE_LESSON = "alice restores the invoices database from the nightly snapshot";
    private static final String ALICE_PLAN = "alice checks the invoices database restore with a row count";
    private static final String BOB_LESSON = "bob restores the invoices database from the hourly binlog";
    /** Answered by the bug-triage transcript, which has no memory block: asking adds no memory. */
    private static final String QUESTION = "Triage the bug: restoring the invoices database fails.";

    @Test
    void listSearchAndForgetAsTheLauncherRunsThem(EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String billing = "billing-" + run;
        String other = "other-" + run;
        String alice = "alice-" + run;
        String bob = "bob-" + run;
        String carol = "carol-" + run;
        try (CognitionRuntime runtime = CognitionRuntime.start(Settings.local(bootstrap, "it-memory-cli-" + run,
                dir.resolve("state")))) {
            runtime.awaitRunning(TIMEOUT);
            Topics topics = runtime.topics();
            write(bootstrap, topics, alice, billing, 0, ALICE_LESSON);
            write(bootstrap, topics, alice, billing, 1, ALICE_PLAN);
            write(bootstrap, topics, bob, billing, 0, BOB_LESSON);
            write(bootstrap, topics, carol, other, 0, "carol keeps the ledger in another scope");
            Kafka.readUntil(bootstrap, topics.memory, entry -> entry.getBlockId().contains(run),
                    seen -> seen.size() >= 4, TIMEOUT);
            MemoryProbe.until(bootstrap, topics, "asker-" + run, billing, QUESTION, TIMEOUT, packet -> packet
                    .getHeader().getContext().contains(ALICE_LESSON) && packet.getHeader().getContext()
                    .contains(BOB_LESSON));

            Cli scopes = launchMemory(dir, bootstrap, "list");
            assertThat(scopes.exitCode()).as(scopes.err()).isZero();
            assertThat(scopes.out()).startsWith("SCOPE").containsPattern("(?m)^" + billing + "\\s+3\\s+2\\s+\\S+Z\\s+"
                    + "\\S+Z$").containsPattern("(?m)^" + other + "\\s+1\\s+1\\s");

            Cli entries = memory(bootstrap, "list", "--scope", billing);
            assertThat(entries.exitCode()).as(entries.err()).isZero();
            List<String> rows = entries.out().lines().skip(1).toList();
            assertThat(rows).hasSize(3).allSatisfy(row -> assertThat(row).containsPattern("^\\S+Z\\s+" + billing
                    + "\\s+(alice|bob)-" + run + "\\s+VERIFY\\s+channel\\.memory-\\d+@\\d+\\s+(alice|bob) "));
            assertThat(rows.get(0)).contains(ALICE_LESSON);

            Cli search = memory(bootstrap, "search", "--scope", billing, "--top", "2",
                    "How", "do", "we", "restore", "the", "invoices", "database?");
            assertThat(search.exitCode()).as(search.err()).isZero();
            assertThat(search.out().lines().toList()).hasSize(2)
                    .allSatisfy(line -> assertThat(line).matches("0\\.\\d{3}  \\S.*"));
            assertThat(search.out()).contains("restores the invoices database").doesNotContain("ledger");
            // Entries the run embedded with MiniLM, embedded again from their text by the static table.
            Cli fast = memory(bootstrap, "search", "--scope", billing, "--top", "1", "--memory-embedder",
                    "static", "How", "do", "we", "restore", "the", "invoices", "database?");
            assertThat(fast.exitCode()).as(fast.err()).isZero();
            assertThat(fast.out()).contains("restores the invoices database").doesNotContain("ledger");
            Cli neitherModel = memory(bootstrap, "search", "--scope", billing, "--memory-embedder", "bert",
                    "invoices");
            assertThat(neitherModel.exitCode()).isEqualTo(2);
            assertThat(neitherModel.err()).contains("'bert' is not static or minilm");
            Cli before = memory(bootstrap, "search", "--scope", billing, "--as-of", "2000-01-01T00:00:00Z",
                    "invoices database");
            assertThat(before.exitCode()).isZero();
            assertThat(before.out()).isEmpty();
            assertThat(before.err()).contains("no memory of scope " + billing + " written by 2000-01-01T00:00:00Z "
                    + "is similar enough");

            // Bad input: a clear error, and nothing written.
            Cli unknown = memory(bootstrap, "forget", "--scope", "nobody-" + run);
            assertThat(unknown.exitCode()).isEqualTo(1);
            assertThat(unknown.err()).startsWith("error: no memory in scope 'nobody-" + run + "'; scopes that hold "
                    + "memories: ").contains("; nothing was written");
            Cli blank = memory(bootstrap, "list", "--scope", " ");
            assertThat(blank.exitCode()).isEqualTo(2);
            assertThat(blank.err()).contains("error: memory scope is empty");
            Cli both = memory(bootstrap, "forget", "--scope", billing, "--session", alice);
            assertThat(both.exitCode()).isEqualTo(2);
            assertThat(both.err()).contains("mutually exclusive");
            Cli neither = memory(bootstrap, "search", "--scope", "nobody-" + run, "invoices");
            assertThat(neither.exitCode()).isEqualTo(1);
            assertThat(neither.err()).contains("error: no memory in scope 'nobody-" + run + "'");

            // Alice asks to be forgotten: her memories leave the prompts of the running instance, Bob's stay.
            Cli forget = launchMemory(dir, bootstrap, "forget", "--session", alice);
            assertThat(forget.exitCode()).as(forget.err()).isZero();
            assertThat(forget.out()).isEqualTo("forgot 2 memories of session " + alice + " (scopes: " + billing
                    + "; sessions: " + alice + "): tombstones on cognition.memory" + System.lineSeparator());
            MemoryProbe.until(bootstrap, topics, "asker-" + run, billing, QUESTION, TIMEOUT, packet -> {
                String context = packet.getHeader().getContext();
                return context.contains(BOB_LESSON) && !context.contains(ALICE_LESSON) && !context.contains(ALICE_PLAN);
            });
            Cli gone = memory(bootstrap, "list", "--session", alice);
            assertThat(gone.exitCode()).isEqualTo(1);
            assertThat(gone.err()).startsWith("error: session '" + alice + "' wrote no memory that is kept");
            Cli left = memory(bootstrap, "list", "--scope", billing);
            assertThat(left.out().lines().skip(1).toList()).singleElement().asString().contains(BOB_LESSON);

            Cli scope = memory(bootstrap, "forget", "--scope", other);
            assertThat(scope.exitCode()).as(scope.err()).isZero();
            assertThat(scope.out()).startsWith("forgot 1 memory of scope " + other);
            assertThat(Kafka.readRaw(bootstrap, Topics.COGNITION_MEMORY)).filteredOn(record -> record.key() != null
                    && new String(record.key(), StandardCharsets.UTF_8).equals(carol + "-out#0"))
                    .extracting(record -> record.value()).as("the entry, then its tombstone").hasSize(2).last()
                    .isNull();
            assertThat(memory(bootstrap, "list", "--scope", other).exitCode()).isEqualTo(1);
        }
    }

    private static void write(String bootstrap, Topics topics, String session, String scope, int sequence,
                              String text) {
        Kafka.send(bootstrap, topics.channel(Channel.MEMORY), session, Records.memoryBlock(session + "-out#"
                + sequence, session, text + ".").setMemoryScope(scope).setTimestamp(Instant.now()).build());
    }

    private static Cli memory(String bootstrap, String... args) {
        return Cli.run(command(bootstrap, args));
    }

    private static Cli launchMemory(Path dir, String bootstrap, String... args) throws Exception {
        return Cli.launch(dir, command(bootstrap, args));
    }

    private static String[] command(String bootstrap, String... args) {
        String[] command = new String[args.length + 3];
        command[0] = "memory";
        System.arraycopy(args, 0, command, 1, args.length);
        command[args.length + 1] = "--bootstrap-servers";
        command[args.length + 2] = bootstrap;
        return command;
    }
}
