package io.cognitionstreams.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.cognitionstreams.app.Publisher;
import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.council.CouncilEnvelope;
import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.council.CouncilView;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilState;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "council", mixinStandardHelpOptions = true,
        subcommands = {CouncilCommand.Keygen.class, CouncilCommand.Sign.class, CouncilCommand.Pending.class,
                CouncilCommand.VoteCommand.class},
        description = {"Prints a council's state: its roles with last heartbeat and status, its open proposals with "
                + "their tallies, and votes waiting for their proposal.",
                "Reads the council's latest record on " + Topics.COUNCIL_STATE + " (read_committed), which the "
                        + "council writes once a tick (--council-tick) when the council changed: it needs only the "
                        + "cluster, and shows what the council has committed."})
final class CouncilCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = {"--council-id", "--council"}, defaultValue = "default",
            description = "Council to show (default: ${DEFAULT-VALUE}).")
    String councilId;

    @Override
    public Integer call() {
        Optional<CouncilState> state = state(cluster, spec, councilId);
        spec.commandLine().getOut().print(CouncilView.render(councilId, state));
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** The council's latest state on council.state; says so on stderr when it has none yet. */
    static Optional<CouncilState> state(ClusterOptions cluster, CommandSpec spec, String councilId) {
        Topic<String, CouncilState> topic = cluster.topics().councilState;
        Optional<CouncilState> state = TopicReader.latestValue(cluster.clientConfig(), topic.name(), councilId)
                .map(value -> topic.valueSerde().deserializer().deserialize(topic.name(), value));
        if (state.isEmpty()) {
            spec.commandLine().getErr().printf("no state for council %s on %s yet: the council writes it once a "
                    + "tick after its first message%n", councilId, topic.name());
            spec.commandLine().getErr().flush();
        }
        return state;
    }

    @Command(name = "pending", mixinStandardHelpOptions = true,
            description = {"Lists the proposals a council has open, each with its deadline, the votes cast so far and "
                    + "what it asks: a tool call waiting for approval shows its tool, skill, session, risk and "
                    + "arguments (redacted for display, with the digest of the exact ones).",
                    "Reads " + Topics.COUNCIL_STATE + ", which the council writes once a tick (--council-tick)."})
    static final class Pending implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = {"--council", "--council-id"}, defaultValue = "default",
                description = "Council whose proposals to list (default: ${DEFAULT-VALUE}).")
        String councilId;

        @Override
        public Integer call() {
            List<ProposalState> open = state(cluster, spec, councilId).map(CouncilState::getProposals)
                    .orElse(List.of());
            PrintWriter out = spec.commandLine().getOut();
            out.print(CouncilView.pending(councilId, open));
            out.flush();
            return 0;
        }
    }

    @Command(name = "vote", mixinStandardHelpOptions = true,
            description = {"Votes on a proposal as a person acting in a council role (e.g. operator, which must be "
                    + "one of the app's --council-roles): a HEARTBEAT, so the role is active, then the VOTE, on "
                    + Topics.COUNCIL_MESSAGES + ".",
                    "With --key (the role's key, `council keygen --role R --publish`) both are signed, as a council "
                            + "run with --council-signatures required demands."})
    static final class VoteCommand implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = {"--council", "--council-id"}, defaultValue = "default",
                description = "The proposal's council (default: ${DEFAULT-VALUE}).")
        String councilId;

        @Option(names = "--proposal", required = true, description = "The proposal's id (`council pending`).")
        String proposal;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Ballot ballot;

        static final class Ballot {
            @Option(names = "--yes", description = "Approve.")
            boolean yes;

            @Option(names = "--no", description = "Reject.")
            boolean no;

            @Option(names = "--abstain", description = "Take part without approving or rejecting.")
            boolean abstain;

            Vote vote() {
                return yes ? Vote.YES : no ? Vote.NO : Vote.ABSTAIN;
            }
        }

        @Option(names = "--as", required = true, paramLabel = "ROLE",
                description = "The council role you vote as (one of the app's --council-roles).")
        String role;

        @Option(names = "--reason", defaultValue = "", description = "One line: why.")
        String reason;

        @Option(names = "--key", paramLabel = "FILE", description = "The role's private key: signs the messages.")
        Path keyFile;

        @Override
        public Integer call() {
            if (reason.length() > CouncilEnvelope.MAX_CONTENT_CHARS) {
                throw new ParameterException(spec.commandLine(), "--reason has " + reason.length()
                        + " characters, over the council's limit of " + CouncilEnvelope.MAX_CONTENT_CHARS
                        + ": one line says why");
            }
            Optional<Ed25519.Key> key = Optional.ofNullable(keyFile).map(file -> new Ed25519.Key(Ed25519.load(file)));
            Instant now = Instant.now();
            String stamp = now.toEpochMilli() + "-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
            CouncilMessage heartbeat = CouncilMessage.newBuilder().setMsgId("hb-" + role + "-" + stamp)
                    .setCouncilId(councilId).setTimestamp(now).setSender(role).setRole("person")
                    .setType(CouncilMessageType.HEARTBEAT).build();
            CouncilMessage vote = CouncilMessage.newBuilder().setMsgId("vote-" + role + "-" + stamp)
                    .setCouncilId(councilId).setTimestamp(now.plusMillis(1)).setSender(role).setRole("person")
                    .setType(CouncilMessageType.VOTE).setProposalId(proposal).setVote(ballot.vote())
                    .setContent(reason).build();
            Topic<String, CouncilMessage> topic = cluster.topics().councilMessages;
            for (CouncilMessage message : List.of(heartbeat, vote)) {
                Publisher.publish(cluster.clientConfig(), topic, Map.of(councilId,
                        key.map(signer -> CouncilSignatures.sign(message, signer)).orElse(message)));
            }
            spec.commandLine().getOut().printf("voted %s on %s in council %s as %s%s%n", ballot.vote(), proposal,
                    councilId, role, key.map(signer -> ", signed by key " + signer.id()).orElse(""));
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    @Command(name = "keygen", mixinStandardHelpOptions = true,
            description = {"Makes a council role's Ed25519 key pair: the private key in --key (readable by its owner "
                    + "only, never overwritten), its public half beside it (.pub).",
                    "With --publish, registers the public key as the role's on " + Topics.COUNCIL_KEYS + ", which "
                            + "the council checks signatures against under --council-signatures required."})
    static final class Keygen implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--role", required = true, description = "The role the key signs for, e.g. lite.")
        String role;

        @Option(names = "--key", required = true, paramLabel = "FILE", description = "Where the private key goes.")
        Path keyFile;

        @Option(names = "--publish", description = "Register the public key on " + Topics.COUNCIL_KEYS + ".")
        boolean publish;

        @Override
        public Integer call() {
            if (Files.exists(keyFile)) {
                throw new ParameterException(spec.commandLine(), keyFile + " exists: a key is never overwritten "
                        + "(move it away to make a new one, and publish the new one)");
            }
            Ed25519.Key key = new Ed25519.Key(Ed25519.loadOrCreate(keyFile));
            CouncilKey record = CouncilSignatures.keyRecord(role, key.publicKey(), Instant.now());
            spec.commandLine().getOut().printf("role %s key %s public %s%n", role, key.id(), record.getPublicKey());
            spec.commandLine().getOut().flush();
            if (publish) {
                Publisher.publish(cluster.clientConfig(), cluster.topics().councilKeys, Map.of(role, record));
                spec.commandLine().getErr().printf("registered key %s as %s's on %s%n", key.id(), role,
                        Topics.COUNCIL_KEYS);
            }
            return 0;
        }
    }

    @Command(name = "sign", mixinStandardHelpOptions = true,
            description = {"Signs council messages: reads one JSON message a line (as `produce --topic "
                    + Topics.COUNCIL_MESSAGES + "` takes them) and writes each signed, for example "
                    + "`cognition council sign --key lite.pem < votes.jsonl | cognition produce --topic "
                    + Topics.COUNCIL_MESSAGES + "`."})
    static final class Sign implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = "--key", required = true, paramLabel = "FILE", description = "The role's private key.")
        Path keyFile;

        @Option(names = "--file", paramLabel = "FILE", description = "Read from FILE instead of stdin.")
        Path file;

        @Override
        public Integer call() throws IOException {
            Ed25519.Key key = new Ed25519.Key(Ed25519.load(keyFile));
            PrintWriter out = spec.commandLine().getOut();
            try (BufferedReader lines = file != null ? Files.newBufferedReader(file, StandardCharsets.UTF_8)
                    : new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                int number = 0;
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    number++;
                    if (line.isBlank()) {
                        continue;
                    }
                    CouncilMessage message;
                    try {
                        message = JsonAvro.fromJson(line, CouncilMessage.class);
                    } catch (RuntimeException e) {
                        spec.commandLine().getErr().printf("error: line %d: %s%n", number, e.getMessage());
                        spec.commandLine().getErr().flush();
                        return 1;
                    }
                    out.println(JsonAvro.toJson(CouncilSignatures.sign(message, key)));
                }
            }
            out.flush();
            return 0;
        }
    }
}
