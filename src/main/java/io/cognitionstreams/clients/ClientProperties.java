package io.cognitionstreams.clients;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client settings from a properties file, as Kafka's own tools take them ({@code --command-config}): security
 * (SASL_SSL for a managed cluster), timeouts, tuning. They go into every producer, consumer, admin and Kafka
 * Streams client the process makes; where the app needs a value of its own for its guarantees (exactly-once,
 * read_committed, its group and transactional ids, its serdes), the app's value wins: those keys are in
 * docs/operations.md ("Client settings").
 */
public final class ClientProperties {

    /** Names the file when no {@code --command-config} is given, so a deployment sets it once. */
    public static final String ENVIRONMENT = "COGNITION_COMMAND_CONFIG";

    private static final Logger LOG = LoggerFactory.getLogger(ClientProperties.class);
    /** Prefixes Kafka Streams passes on to one of its clients, and topic configs of its internal topics. */
    private static final List<String> CLIENT_PREFIXES = List.of(StreamsConfig.PRODUCER_PREFIX,
            StreamsConfig.CONSUMER_PREFIX, StreamsConfig.MAIN_CONSUMER_PREFIX, StreamsConfig.RESTORE_CONSUMER_PREFIX,
            StreamsConfig.GLOBAL_CONSUMER_PREFIX, StreamsConfig.ADMIN_CLIENT_PREFIX, StreamsConfig.TOPIC_PREFIX);
    /** The app's own keys, read from the same configs (a schema registry's serdes). */
    private static final List<String> APP_PREFIXES = List.of("cognition.", "apicurio.");

    private ClientProperties() {
    }

    /**
     * The settings of {@code file}, or of the file {@value #ENVIRONMENT} names when {@code file} is null; none when
     * neither is given. Read before anything connects, so a wrong path ends the command with a clear error first.
     *
     * @throws IllegalArgumentException the file is missing, unreadable or not a properties file
     */
    public static Map<String, Object> load(Path file, Map<String, String> environment) {
        Optional<Path> path = Optional.ofNullable(file).or(() -> Optional.ofNullable(environment.get(ENVIRONMENT))
                .filter(value -> !value.isBlank()).map(Path::of));
        if (path.isEmpty()) {
            return Map.of();
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path.get(), StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot read the client settings in " + path.get()
                    + (file == null ? " (named by " + ENVIRONMENT + ")" : "") + ": " + describe(e), e);
        }
        Map<String, Object> settings = new TreeMap<>();
        properties.stringPropertyNames().forEach(key -> settings.put(key, properties.getProperty(key)));
        Set<String> unknown = unknownKeys(settings.keySet());
        if (!unknown.isEmpty()) {
            LOG.warn("{} sets {}, which no Kafka client knows: a typo? They are passed on all the same", path.get(),
                    unknown);
        }
        return settings;
    }

    /** Keys that no producer, consumer, admin or Kafka Streams config defines, nor any of the app's own. */
    public static Set<String> unknownKeys(Set<String> keys) {
        Set<String> unknown = new TreeSet<>();
        for (String key : keys) {
            String name = key;
            for (String prefix : CLIENT_PREFIXES) {
                if (key.startsWith(prefix)) {
                    name = key.substring(prefix.length());
                }
            }
            boolean app = APP_PREFIXES.stream().anyMatch(key::startsWith);
            boolean known = ProducerConfig.configNames().contains(name) || ConsumerConfig.configNames().contains(name)
                    || AdminClientConfig.configNames().contains(name) || StreamsConfig.configDef().names().contains(name)
                    || key.startsWith(StreamsConfig.TOPIC_PREFIX);
            if (!app && !known) {
                unknown.add(key);
            }
        }
        return unknown;
    }

    private static String describe(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
