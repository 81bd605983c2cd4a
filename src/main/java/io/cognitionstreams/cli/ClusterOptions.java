package io.cognitionstreams.cli;

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

    @Option(names = "--schema-registry-url", paramLabel = "URL",
            description = "Confluent-compatible schema registry; values then use the Confluent wire format. "
                    + "Default: registry-less Avro single-object encoding.")
    String schemaRegistryUrl;

    String bootstrapOrLocal() {
        return bootstrapServers != null ? bootstrapServers : LOCAL_BROKER;
    }

    Optional<String> registry() {
        return Optional.ofNullable(schemaRegistryUrl).filter(url -> !url.isBlank());
    }

    Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>();
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
