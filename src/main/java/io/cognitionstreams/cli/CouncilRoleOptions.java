package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.cognitionstreams.roles.RoleEndpoints;
import picocli.CommandLine.Option;

/** The council roles `run` votes for with a model: one role worker each (docs/council.md, "Model roles"). */
final class CouncilRoleOptions {

    @Option(names = "--council-role", paramLabel = "NAME=ENDPOINT[#model]",
            description = "A council role voted by a model, repeatable: NAME=http(s)://host/v1[#model] (any "
                    + "OpenAI-compatible endpoint; the key from --model-api-key-env) or NAME=replay (the replay "
                    + "model's role transcripts, as --demo uses). The role is added to --council-roles.")
    List<String> roles = new ArrayList<>();

    @Option(names = "--council-role-councils", defaultValue = "default", split = ",", paramLabel = "COUNCIL",
            description = "The councils the role workers serve: they heartbeat into these and vote on their "
                    + "proposals (default: ${DEFAULT-VALUE}).")
    List<String> councils;

    @Option(names = "--council-role-heartbeat", defaultValue = "30s",
            description = "How often a role worker heartbeats while its endpoint is reachable (default: "
                    + "${DEFAULT-VALUE}; the council counts a role inactive after --council-heartbeat-timeout).")
    Duration heartbeat;

    @Option(names = "--council-role-prompt-tokens", defaultValue = "" + RoleEndpoints.DEFAULT_PROMPT_BUDGET,
            paramLabel = "N", description = "Tokens a role's vote prompt may have (default: ${DEFAULT-VALUE}).")
    int promptBudget;

    /** @param demo the demo votes with prime and lite on the replay model unless roles are given */
    RoleEndpoints endpoints(boolean demo) {
        List<String> specs = roles.isEmpty() && demo ? List.of("prime=" + RoleEndpoints.REPLAY,
                "lite=" + RoleEndpoints.REPLAY) : roles;
        return new RoleEndpoints(specs.stream().map(RoleEndpoints.Endpoint::parse).toList(), councils, heartbeat,
                promptBudget);
    }

    /** The council's roles: those of --council-roles, and every role a worker votes as. */
    static List<String> councilRoles(List<String> configured, RoleEndpoints workers) {
        Set<String> all = new LinkedHashSet<>(configured);
        all.addAll(workers.roles());
        return List.copyOf(all);
    }
}
