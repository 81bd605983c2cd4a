package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.security.AclProfile;
import io.cognitionstreams.security.KafkaAcls;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "acl",
        description = {"The least-privilege ACLs of the secure deployment (docs/security.md): print them, or apply "
                + "them to a cluster with an admin's --command-config."},
        subcommands = {AclCommand.Print.class, AclCommand.Apply.class})
final class AclCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "say what to do: print or apply");
    }

    /** Whose rights the profile lists: the same options as `run --secure`, with the same defaults. */
    static final class ProfileOptions {

        @Option(names = "--application-id", defaultValue = Settings.DEFAULT_APPLICATION_ID,
                description = "The app's application id, the prefix of the topics, groups and transactional ids it "
                        + "owns (default: ${DEFAULT-VALUE}).")
        String applicationId;

        @Option(names = "--tenants", defaultValue = Principals.DEFAULT_TENANTS, split = ",",
                paramLabel = "TENANT",
                description = "Tenants, each with an agent principal agent-<tenant> that writes its own "
                        + "cognition.requests.<tenant> and reads channel.<tenant>.* (default: ${DEFAULT-VALUE}).")
        List<String> tenants;

        @Option(names = "--council-roles", defaultValue = "prime,lite,codemind", split = ",", paramLabel = "ROLE",
                description = "Council roles, each with a principal council-<role> (default: ${DEFAULT-VALUE}).")
        List<String> councilRoles;

        Principals principals() {
            return new Principals(tenants, councilRoles);
        }

        AclProfile profile() {
            Principals principals = principals();
            return AclProfile.of(applicationId, Topics.names(principals.tenants()), principals);
        }
    }

    @Command(name = "print",
            description = "Prints each principal's rights, one row per resource.")
    static final class Print implements Callable<Integer> {

        @Mixin
        ProfileOptions profile;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            print(profile.profile(), spec.commandLine().getOut());
            return 0;
        }
    }

    @Command(name = "apply",
            description = {"Creates the profile's ACLs the cluster lacks (applying twice changes nothing; ACLs it "
                    + "does not name are left alone).",
                    "Needs a principal allowed to alter ACLs, e.g. --command-config <secrets-dir>/admin.properties."})
    static final class Apply implements Callable<Integer> {

        @Mixin
        ProfileOptions profile;

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            AclProfile acls = profile.profile();
            int created;
            try (Admin admin = Admin.create(cluster.clientConfig())) {
                created = KafkaAcls.apply(admin, acls);
            }
            spec.commandLine().getErr().printf("%d ACLs for %d principals on %s: %d new%n", acls.grants().size(),
                    acls.byPrincipal().size(), cluster.bootstrapOrLocal(), created);
            return 0;
        }
    }

    static void print(AclProfile profile, PrintWriter out) {
        out.printf("%-22s %-17s %-8s %-24s %s%n", "principal", "resource type", "pattern", "resource",
                "operations");
        for (Map.Entry<String, Map<AclProfile.Resource, Set<AclProfile.Operation>>> principal
                : profile.byPrincipal().entrySet()) {
            for (Map.Entry<AclProfile.Resource, Set<AclProfile.Operation>> row : principal.getValue().entrySet()) {
                AclProfile.Resource resource = row.getKey();
                out.printf("%-22s %-17s %-8s %-24s %s%n", "User:" + principal.getKey(), resource.type(),
                        resource.pattern(), resource.name(), row.getValue().stream().map(Enum::name)
                                .collect(Collectors.joining(", ")));
            }
        }
        out.printf("%-22s %s%n", "User:" + Principals.ADMIN, "super user (the broker's own principal): no ACL "
                + "needed, none given");
    }
}
