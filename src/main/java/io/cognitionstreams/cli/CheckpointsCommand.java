package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.timetravel.Checkpoints;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "checkpoints",
        description = {"Lists a session's checkpoints in order, read_committed from cognition.checkpoints.",
                "A packet checkpoint is the state before the model answered (where AutoFix travels back to and "
                        + "where `replay --to` and `fork --from` start); a verified one follows a passed Verify."})
final class CheckpointsCommand implements Callable<Integer> {

    private static final String ROW = "%4s  %-8s  %-7s  %-8s  %-8s  %-30s  %7s  %5s  %-24s  %s%n";

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--session", required = true, description = "Session whose checkpoints to list.")
    String session;

    @Override
    public Integer call() {
        List<Checkpoint> checkpoints = new Timeline(cluster).checkpoints(session);
        if (checkpoints.isEmpty()) {
            spec.commandLine().getErr().println("no checkpoints for session " + session);
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(ROW, "seq", "kind", "stage", "packet", "branch", "source", "history", "retry", "time", "request");
        for (Checkpoint checkpoint : checkpoints) {
            out.printf(ROW, checkpoint.getSequence(), Checkpoints.kind(checkpoint), checkpoint.getStage(),
                    checkpoint.getPacketId(), checkpoint.getBranchId(), checkpoint.getSourceTopic() + "-"
                            + checkpoint.getSourcePartition() + "@" + checkpoint.getSourceOffset(),
                    checkpoint.getHistoryRef(), checkpoint.getRetryCount(), checkpoint.getTimestamp(),
                    checkpoint.getRequestId());
        }
        out.flush();
        return 0;
    }
}
