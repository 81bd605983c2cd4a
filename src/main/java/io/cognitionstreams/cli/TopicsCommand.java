package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "topics",
        description = "Lists the app's topics: value schema, who writes and reads them, and (with --describe) "
                + "their partitions and record counts on the cluster.")
final class TopicsCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--describe", description = "Also ask the cluster for partitions, replication and end offsets.")
    boolean describe;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Topics topics = cluster.topics();
        if (!describe) {
            out.printf("%-24s %-18s %s%n", "TOPIC", "VALUE", "PRODUCER -> CONSUMER");
            for (Topic<?, ?> topic : topics.all()) {
                out.printf("%-24s %-18s %s%n", topic.name(), topic.valueType().getSimpleName(), topic.role());
            }
            return 0;
        }
        try (Admin admin = Admin.create(cluster.clientConfig())) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<String> names = topics.all().stream().map(Topic::name).filter(existing::contains).toList();
            Map<String, TopicDescription> described =
                    admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = described.values().stream()
                    .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                    .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            out.printf("%-24s %-18s %10s %11s %12s%n", "TOPIC", "VALUE", "PARTITIONS", "REPLICATION", "END OFFSETS");
            for (Topic<?, ?> topic : topics.all()) {
                TopicDescription d = described.get(topic.name());
                if (d == null) {
                    out.printf("%-24s %-18s %s%n", topic.name(), topic.valueType().getSimpleName(),
                            "(missing: `cognition run` creates it)");
                    continue;
                }
                long records = ends.entrySet().stream().filter(e -> e.getKey().topic().equals(topic.name()))
                        .mapToLong(e -> e.getValue().offset()).sum();
                out.printf("%-24s %-18s %10d %11d %12d%n", topic.name(), topic.valueType().getSimpleName(),
                        d.partitions().size(), d.partitions().get(0).replicas().size(), records);
            }
        }
        return 0;
    }
}
