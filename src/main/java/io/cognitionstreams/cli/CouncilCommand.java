package io.cognitionstreams.cli;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.LongDeserializer;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.council.CouncilTopology;
import io.cognitionstreams.council.CouncilView;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "council", mixinStandardHelpOptions = true,
        description = {"Prints a council's state: its roles with last heartbeat and status, its open proposals with "
                + "their tallies, and votes waiting for their proposal.",
                "Reads the council app's state-store changelogs (read_committed, latest record per key), so it "
                        + "shows what the council has committed, without joining a consumer group."})
final class CouncilCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--council-id", defaultValue = "default",
            description = "Council to show (default: ${DEFAULT-VALUE}).")
    String councilId;

    @Option(names = "--application-id", defaultValue = Settings.DEFAULT_APPLICATION_ID,
            description = "Application id `cognition run` was given (default: ${DEFAULT-VALUE}).")
    String applicationId;

    @Override
    public Integer call() {
        Topics topics = cluster.topics();
        String clockTopic = changelog(CouncilTopology.CLOCK_STORE);
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            if (!consumer.listTopics(Duration.ofSeconds(30)).containsKey(clockTopic)) {
                spec.commandLine().getErr().println("error: no council state for application id " + applicationId
                        + " (" + clockTopic + " does not exist): has `cognition run` run with it?");
                return 1;
            }
            Optional<Instant> clock = Optional.ofNullable(latest(consumer, clockTopic, new LongDeserializer(),
                    councilId::equals).get(councilId)).map(Instant::ofEpochMilli);
            List<RoleStatus> roles = ofCouncil(consumer, CouncilTopology.ROLES_STORE,
                    topics.serde(RoleStatus.class).deserializer());
            List<ProposalState> proposals = ofCouncil(consumer, CouncilTopology.PROPOSALS_STORE,
                    topics.serde(ProposalState.class).deserializer());
            List<CouncilMessage> pending = ofCouncil(consumer, CouncilTopology.PENDING_VOTES_STORE,
                    topics.councilMessages.valueSerde().deserializer());
            spec.commandLine().getOut().print(CouncilView.render(councilId, clock, roles, proposals, pending));
            spec.commandLine().getOut().flush();
        }
        return 0;
    }

    private String changelog(String store) {
        return CouncilTopology.changelog(applicationId, store);
    }

    /** The council's entries of a store keyed by council id + '/' + ..., in key order. */
    private <V> List<V> ofCouncil(KafkaConsumer<byte[], byte[]> consumer, String store, Deserializer<V> values) {
        String prefix = councilId + "/";
        return new ArrayList<>(latest(consumer, changelog(store), values, key -> key.startsWith(prefix)).values());
    }

    /** The latest value of each wanted key, up to the topic's last committed offset; a tombstone removes a key. */
    private static <V> Map<String, V> latest(KafkaConsumer<byte[], byte[]> consumer, String topic,
                                             Deserializer<V> values, Predicate<String> wanted) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(topic, info.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        Map<String, V> latest = new TreeMap<>();
        Set<TopicPartition> reading = new HashSet<>(partitions);
        while (!reading.isEmpty()) {
            reading.removeIf(partition -> consumer.position(partition) >= ends.get(partition));
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                String key = new String(record.key(), StandardCharsets.UTF_8);
                if (!wanted.test(key)) {
                    continue;
                }
                if (record.value() == null) {
                    latest.remove(key);
                } else {
                    latest.put(key, values.deserialize(topic, record.value()));
                }
            }
        }
        return latest;
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties props = new Properties();
        props.putAll(cluster.clientConfig());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
