package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "rewind",
        description = {"Moves a consumer group's committed offsets to the first record at or after a time, so its "
                + "consumers reprocess from there (a partition with nothing that late goes to its end).",
                "The group must be inactive: stop its consumers first. A Kafka Streams capability's group is "
                        + "<application-id>-<capability>; its state stores are not rewound (docs/timetravel.md).",
                "The app's own groups on the embedded broker are active whenever the broker runs: rewind them "
                        + "with `run --rewind-to-time T --rewind-group G` instead."})
final class RewindCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--group", required = true, description = "Consumer group to rewind.")
    String group;

    @Option(names = "--to-time", required = true, paramLabel = "ISO-8601",
            description = "The time to rewind to, e.g. 2026-11-22T10:00:00Z.")
    String toTime;

    @Option(names = "--topic", paramLabel = "TOPIC",
            description = "Only these topics (repeatable). Default: every partition the group has offsets for.")
    List<String> topics;

    @Override
    public Integer call() throws InterruptedException, ExecutionException {
        PrintWriter err = spec.commandLine().getErr();
        Optional<Instant> time = GroupRewind.time("--to-time", toTime, err);
        if (time.isEmpty()) {
            return 2;
        }
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            return new GroupRewind(admin, spec.commandLine().getOut(), err).rewind(group, time.get(), topics);
        }
    }
}
