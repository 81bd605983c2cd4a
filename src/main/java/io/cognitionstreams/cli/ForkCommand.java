package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.timetravel.ReplayPlan;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "fork",
        description = {"Forks a session at checkpoint N into a new session: the requests before N rebuild its "
                + "history, the ones from N on run again there, each sent once the one before is answered "
                + "(docs/timetravel.md).",
                "Every request sent has parent_id = the original's packet, so the fork's records point back; the "
                        + "original session is not touched. Progress goes to stderr."})
final class ForkCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--session", required = true, description = "Session to fork.")
    String session;

    @Option(names = "--from", required = true, paramLabel = "N",
            description = "Checkpoint to fork at (`cognition checkpoints` lists them).")
    int from;

    @Option(names = "--as", paramLabel = "SESSION", description = "The fork's session id (default: <session>~fork-N).")
    String as;

    @Option(names = "--execute-tools",
            description = "Run the fork's approved tool calls from checkpoint N on (under new call ids). Without it, "
                    + "they are decided by the gatekeeper and recorded, but never executed.")
    boolean executeTools;

    @Option(names = "--progress-every", defaultValue = "100", paramLabel = "N",
            description = "Print a progress line every N requests sent (default: ${DEFAULT-VALUE}).")
    int progressEvery;

    @Option(names = "--turn-timeout", defaultValue = "120s", paramLabel = "DURATION",
            description = "How long to wait for each turn's answer before sending the next (default: "
                    + "${DEFAULT-VALUE}); the app must be running.")
    Duration turnTimeout;

    @Override
    public Integer call() throws InterruptedException, ExecutionException {
        String fork = as != null ? as : ReplayPlan.forkSession(session, from);
        Timeline timeline = new Timeline(cluster);
        Map<String, List<Checkpoint>> checkpoints = timeline.checkpoints(List.of(session, fork));
        if (!checkpoints.get(fork).isEmpty()) {
            spec.commandLine().getErr().println("error: session " + fork + " already has checkpoints; name the fork "
                    + "with --as");
            return 2;
        }
        ReplayPlan.Plan plan = new ReplayPlan(session, checkpoints.get(session), from)
                .fork(timeline.requests(session, Optional.empty()), fork, executeTools);
        timeline.sendTurnByTurn(plan.requests(), plan.answered(), turnTimeout, "forked", progressEvery,
                spec.commandLine().getErr());
        spec.commandLine().getOut().printf("forked session %s at checkpoint %d into %s: %d requests rebuild its "
                        + "history, %d run again from the checkpoint; their parent_id is the original packet%n",
                session, from, fork, plan.rebuilt(), plan.requests().size() - plan.rebuilt());
        return 0;
    }
}
