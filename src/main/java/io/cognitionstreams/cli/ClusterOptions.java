package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import io.cognitionstreams.clients.ClientProperties;
import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Option;

/** How a command reaches the cluster and decodes values; shared by every command that talks to Kafka. */
final class ClusterOptions {

    /** Where `cognition run` puts its embedded broker by default, so the other commands find it unflagged. */
    static final String LOCAL_BROKER = "127.0.0.1:9092";

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]",
            description = "Kafka cluster to use. `run` starts an embedded broker when this is not given; "
                    + "other commands default to the embedded broker's address, " + LOCAL_BROKER + ".")
    String bootstrapServers;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Client settings (a properties file, as for Kafka's own tools: security, timeouts) for "
                    + "every Kafka client the command makes; the app's own values win where its guarantees need "
                    + "them (docs/operations.md). Default: the file $" + ClientProperties.ENVIRONMENT + " names, "
                    + "if set.")
    Path commandConfig;

    private Map<String, Object> fileSettings;

    @Option(names = "--schema-registry-url", paramLabel = "URL",
            description = "Confluent-compatible schema registry; values then use the Confluent wire format. "
                    + "Default: registry-less Avro single-object encoding.")
    String schemaRegistryUrl;

    /**
     * The client settings of {@code --command-config} (or the environment's file), read once; a missing or
     * unreadable file is an error here, before anything connects.
     */
    Map<String, Object> fileSettings() {
        if (fileSettings == null) {
            fileSettings = ClientProperties.load(commandConfig, System.getenv());
        }
        return fileSettings;
    }

    /** The cluster named by {@code --bootstrap-servers}, else by the client settings' bootstrap.servers. */
    Optional<String> namedCluster() {
        return Optional.ofNullable(bootstrapServers)
                .or(() -> Optional.ofNullable(fileSettings().get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG))
                        .map(Object::toString));
    }

    String bootstrapOrLocal() {
        return namedCluster().orElse(LOCAL_BROKER);
    }

    Optional<String> registry() {
        return Optional.ofNullable(schemaRegistryUrl).filter(url -> !url.isBlank());
    }

    /** What every client of the command starts from; the command then puts the values it needs on top. */
    Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>(fileSettings());
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapOrLocal());
        return config;
    }

    /** A topic's configuration on the cluster, or empty when the cluster has no such topic. */
    Optional<Config> topicConfig(String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = Admin.create(clientConfig())) {
            return Optional.of(admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                    .get(resource));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    Topics topics() {
        return new Topics(AvroSerdes.forRegistry(registry()));
    }
}
