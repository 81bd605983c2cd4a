package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.cognitionstreams.app.Settings;
import io.cognitionstreams.app.StreamsSettings;
import io.cognitionstreams.gatekeeper.GatekeeperTopology;
import io.cognitionstreams.schema.GatekeeperDenial;
import io.cognitionstreams.schema.GatekeeperSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "gatekeeper", mixinStandardHelpOptions = true,
        description = {"Shows a session's gatekeeper state: its active skills against the cognitive-load threshold, "
                + "its call counts and its recent denials.",
                "Read from the changelog of the gatekeeper's active-skills store, read_committed, so it needs only "
                        + "the cluster, not the running app."})
final class GatekeeperCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--session", required = true, paramLabel = "ID", description = "Session id.")
    String session;

    @Option(names = "--application-id", defaultValue = Settings.DEFAULT_APPLICATION_ID,
            description = "The --application-id the app runs with (default: ${DEFAULT-VALUE}).")
    String applicationId;

    /** Kafka Streams names a store's changelog {@code <application id>-<store>-changelog}. */
    static String changelog(String applicationId) {
        return StreamsSettings.applicationId(applicationId, GatekeeperTopology.NAME) + "-"
                + GatekeeperTopology.ACTIVE_SKILLS_STORE + "-changelog";
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String topic = changelog(applicationId);
        byte[] latest;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            if (partitions.isEmpty()) {
                err.printf("error: no topic %s: has the gatekeeper of application id %s run on this cluster?%n",
                        topic, applicationId);
                return 2;
            }
            latest = latestValue(consumer, partitions);
        }
        if (latest == null) {
            out.printf("no gatekeeper state for session %s: it has made no tool call, or it ended (in %s)%n",
                    session, topic);
            return 0;
        }
        out.print(render(session, cluster.topics().serde(GatekeeperSession.class).deserializer()
                .deserialize(topic, latest)));
        return 0;
    }

    /**
     * The session's last value up to the committed end of every partition: null if it has none or was deleted.
     * Every partition is read because a producer may partition sessions its own way; the topic is compacted.
     */
    private byte[] latestValue(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        byte[] key = session.getBytes(StandardCharsets.UTF_8);
        byte[] latest = null;
        while (partitions.stream().anyMatch(partition -> consumer.position(partition) < end.get(partition))) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                if (Arrays.equals(key, record.key())) {
                    latest = record.value();
                }
            }
        }
        return latest;
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

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties props = new Properties();
        props.putAll(cluster.clientConfig());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
