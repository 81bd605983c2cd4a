package io.cognitionstreams.cli;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.timetravel.ReplayPlan;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "replay",
        description = {"Re-runs a session from checkpoint N, in the same session: its original requests from N on "
                + "are sent again, each assembled from the history its original saw (docs/timetravel.md).",
                "The requests are found on cognition.requests by the checkpoint's time; nothing already written "
                        + "changes. Progress goes to stderr."})
final class ReplayCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--session", required = true, description = "Session to replay.")
    String session;

    @Option(names = "--to", required = true, paramLabel = "N",
            description = "Checkpoint to travel back to (`cognition checkpoints` lists them).")
    int to;

    @Option(names = "--progress-every", defaultValue = "100", paramLabel = "N",
            description = "Print a progress line every N requests sent (default: ${DEFAULT-VALUE}).")
    int progressEvery;

    @Override
    public Integer call() {
        Timeline timeline = new Timeline(cluster);
        ReplayPlan plan = new ReplayPlan(session, timeline.checkpoints(session), to);
        List<CognitionRequest> requests = timeline.requests(session, Optional.of(plan.anchorTime()));
        if (requests.stream().noneMatch(request -> request.getRequestId().equals(plan.anchorRequestId()))) {
            // Producers set record timestamps: out of order, the seek can land past the anchor.
            requests = timeline.requests(session, Optional.empty());
        }
        String tag = ReplayPlan.replayTag(Instant.now());
        ReplayPlan.Plan replay = plan.replay(requests, tag);
        timeline.send(replay.requests(), "replayed", progressEvery, spec.commandLine().getErr());
        spec.commandLine().getOut().printf("replayed %d request%s of session %s from checkpoint %d; their ids end "
                        + "in @replay-%s and their parent_id is the original packet%n", replay.requests().size(),
                replay.requests().size() == 1 ? "" : "s", session, to, tag);
        return 0;
    }
}
