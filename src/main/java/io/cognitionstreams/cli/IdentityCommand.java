package io.cognitionstreams.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.cognitionstreams.app.Publisher;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "identity",
        description = {"The identity every packet carries (seed 003 section 3): changing it is a governance action.",
                "Only azrael alone, or azrael with prime for an emergency patch, may change it; the app refuses "
                        + "any other version. In production, also restrict WRITE on cognition.identity with ACLs."},
        subcommands = IdentityCommand.Set.class)
final class IdentityCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "say what to do: set");
    }

    @Command(name = "set",
            description = "Writes a new identity version to cognition.identity; one the app would refuse is "
                    + "refused here already, and nothing is written.")
    static final class Set implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--file", required = true, description = "The identity text.")
        Path file;

        @Option(names = "--author", required = true, description = "Who approves it (repeat for several).")
        List<String> authors;

        @Option(names = "--version", required = true, description = "The new version number.")
        int version;

        @Option(names = "--reason", defaultValue = "", description = "Why it changes.")
        String reason;

        @Override
        public Integer call() throws Exception {
            Identity identity = IdentityGovernance.requireGoverned(Identity.newBuilder()
                    .setText(Files.readString(file, StandardCharsets.UTF_8).strip())
                    .setVersion(version)
                    .setAuthors(authors)
                    .setReason(reason)
                    .setTimestamp(Instant.now())
                    .build());
            Publisher.publish(cluster.clientConfig(), cluster.topics().identity,
                    Map.of(IdentityGovernance.KEY, identity));
            spec.commandLine().getErr().printf("identity version %d by %s written to %s%n", version, authors,
                    Topics.COGNITION_IDENTITY);
            return 0;
        }
    }
}
