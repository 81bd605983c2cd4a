package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.schema.GatekeeperDenial;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "gatekeeper",
        description = {"Shows a session's gatekeeper state: its active skills against the cognitive-load threshold, "
                + "its call counts and its recent denials.",
                "Reads the session's latest record on " + Topics.GATEKEEPER_SESSIONS + " (read_committed), which "
                        + "the gatekeeper writes with every change: it needs only the cluster, not the running app."})
final class GatekeeperCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--session", required = true, paramLabel = "ID", description = "Session id.")
    String session;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Topic<String, GatekeeperSession> topic = cluster.topics().gatekeeperSessions;
        Optional<GatekeeperSession> state = TopicReader.latestValue(cluster.clientConfig(), topic.name(), session)
                .map(value -> topic.valueSerde().deserializer().deserialize(topic.name(), value));
        out.print(state.map(found -> render(session, found)).orElseGet(() -> String.format(
                "no gatekeeper state for session %s: it has made no tool call, or it ended (in %s)%n", session,
                topic.name())));
        out.flush();
        return 0;
    }

    static String render(String session, GatekeeperSession state) {
        StringBuilder text = new StringBuilder();
        int active = state.getActiveSkills().size();
        int threshold = state.getOverloadThreshold();
        text.append(String.format("session %s (updated %s)%n", session, state.getUpdated()));
        text.append(String.format("active skills: %d of %d%s%n", active, threshold,
                active > threshold ? ": overloaded, every successful result carries a warning" : ""));
        if (active > 0) {
            text.append(String.format("  %s%n", String.join(", ", state.getActiveSkills())));
        }
        text.append(String.format("calls: %d approved (%d privileged), %d denied%n", state.getApprovedCalls(),
                state.getPrivilegedCalls(), state.getDeniedCalls()));
        List<GatekeeperDenial> denials = state.getRecentDenials();
        text.append(denials.isEmpty() ? String.format("recent denials: none%n")
                : String.format("recent denials (last %d, oldest first):%n", denials.size()));
        for (GatekeeperDenial denial : denials) {
            text.append(String.format("  %s  %s  %s  %s%s%n    %s%n", denial.getTimestamp(),
                    denial.getSkill() != null ? denial.getSkill() : "(no skill)", denial.getTool(), denial.getKind(),
                    denial.getRequiredPermission() != null ? " (needs " + denial.getRequiredPermission() + ")" : "",
                    denial.getReason()));
        }
        return text.toString();
    }
}
