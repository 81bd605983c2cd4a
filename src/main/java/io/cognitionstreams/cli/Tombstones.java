package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;

import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Deletes keys from a compacted topic: one record with a null value per key, which the app's global stores apply
 * as a delete and compaction keeps until delete.retention.ms. Only on a compacted topic, where the latest record
 * of a key is its value; anywhere else a null value deletes nothing and only reaches consumers as a bad record.
 */
final class Tombstones {

    private Tombstones() {
    }

    /** Writes the tombstones and reports them on {@code err}; the command's exit code. */
    static int write(ClusterOptions cluster, Topics topics, Topic<?, ?> topic, List<String> keys, PrintWriter err)
            throws Exception {
        if (!topic.compacted()) {
            err.println("error: " + topic.name() + " is not a compacted topic, so a tombstone would delete nothing; "
                    + "the compacted ones are " + topics.all().stream().filter(Topic::compacted).map(Topic::name)
                    .toList());
            return 2;
        }
        // The cluster's word too: a topic created by hand or by auto-creation has the broker's default policy.
        Optional<Config> onCluster = cluster.topicConfig(topic.name());
        if (onCluster.isEmpty()) {
            err.println("error: topic " + topic.name() + " does not exist on the cluster (`cognition run` creates "
                    + "it)");
            return 2;
        }
        String policy = onCluster.get().get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
        if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
            err.println("error: " + topic.name() + " has cleanup.policy=" + policy + " on the cluster, not compact, "
                    + "so a tombstone would delete nothing; the app creates it compacted, so it was created some "
                    + "other way");
            return 2;
        }
        try (AsyncSender sender = new AsyncSender(cluster.clientConfig(), AsyncSender.recordLimit(onCluster))) {
            for (int i = 0; i < keys.size(); i++) {
                sender.send(i, new ProducerRecord<>(topic.name(), ProduceCommand.utf8(keys.get(i)), null));
            }
            sender.flush();
            sender.printFailures(err, i -> "tombstone for key " + keys.get((int) i));
            err.printf("wrote %d tombstone%s to %s%n", sender.acknowledged(), sender.acknowledged() == 1 ? "" : "s",
                    topic.name());
            return sender.failed() ? 1 : 0;
        }
    }
}
