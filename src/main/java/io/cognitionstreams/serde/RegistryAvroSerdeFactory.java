package io.cognitionstreams.serde;

import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import com.microsoft.kiota.ApiException;
import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryClientFacadeFactory;
import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.rest.client.RegistryClient;
import io.apicurio.registry.rest.client.models.CreateRule;
import io.apicurio.registry.rest.client.models.ProblemDetails;
import io.apicurio.registry.rest.client.models.RuleType;
import io.apicurio.registry.rest.client.models.RuleViolationProblemDetails;
import io.apicurio.registry.serde.Default4ByteIdHandler;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.serde.config.IdOption;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.apicurio.registry.serde.kafka.config.KafkaSerdeConfig;
import io.apicurio.registry.serde.strategy.TopicIdStrategy;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confluent wire format backed by a schema registry: every value is the magic byte {@code 0x00}, the 4-byte
 * big-endian schema id the registry gave the writer's schema, then the plain Avro binary body. Schemas are
 * registered under the subject {@code <topic>-value} (TopicNameStrategy), and each subject gets a
 * {@code COMPATIBILITY} rule ({@code BACKWARD} unless configured otherwise) before this app adds a version to it.
 *
 * <p>Confluent's own serializer is not on Maven Central, so the registry is spoken to by Apicurio Registry's Kafka
 * serdes ({@code io.apicurio:apicurio-registry-avro-serde-kafka}) over Apicurio's native REST API v3. The id they
 * write is Apicurio's {@code contentId}, which is the schema id Apicurio's Confluent-compatible API
 * ({@code /apis/ccompat/v7}) serves by default, so Kafka UI and Confluent deserializers pointed there decode the
 * values. The registry must therefore be an Apicurio Registry 3; see docs/serialization.md.
 *
 * <p>Configuration: the URL (the registry's base URL, or its {@code /apis/registry/v3} API URL), an optional
 * {@value #COMPATIBILITY}, and any {@code apicurio.registry.*} key (auth, TLS, retries, cache), passed to Apicurio
 * as is. The keys that decide the wire format and the subject names are fixed here and cannot be overridden.
 */
public final class RegistryAvroSerdeFactory implements AvroSerdeFactory {

    /** Prefix of this app's registry keys; {@link AvroSerdes#SCHEMA_REGISTRY_URL} is the URL. */
    public static final String PREFIX = "cognition.schema.registry.";

    /**
     * Compatibility level set on each subject that has no {@code COMPATIBILITY} rule yet: one of {@link #LEVELS},
     * default {@value #DEFAULT_COMPATIBILITY}. Empty: set none, leave it to the registry's global rule.
     */
    public static final String COMPATIBILITY = PREFIX + "compatibility";
    public static final String DEFAULT_COMPATIBILITY = "BACKWARD";
    public static final Set<String> LEVELS = Set.of("BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD",
            "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE", "NONE");

    /** Path of Apicurio Registry's native REST API v3, added to a URL that has no path. */
    public static final String API_PATH = "/apis/registry/v3";

    /** Apicurio's group for artifacts made without one; its Confluent-compatible API lists them as subjects. */
    static final String DEFAULT_GROUP = "default";
    static final String APICURIO_PREFIX = "apicurio.registry.";
    static final byte MAGIC_BYTE = 0;
    static final int HEADER_SIZE = 5;

    private static final Logger LOG = LoggerFactory.getLogger(RegistryAvroSerdeFactory.class);

    private final String url;
    private final String apiUrl;
    private final String compatibility;
    private final Map<String, Object> serdeConfig;
    private final RegistryClientFacade registry;
    private final Set<String> subjectsWithRule = ConcurrentHashMap.newKeySet();

    public RegistryAvroSerdeFactory(String url) {
        this(url, Map.of());
    }

    /**
     * @param url     the registry, e.g. {@code http://registry:8080} or {@code http://registry:8080/apis/registry/v3}
     * @param configs the app's config: {@value #COMPATIBILITY} and {@code apicurio.registry.*} keys are read,
     *                everything else is ignored
     */
    public RegistryAvroSerdeFactory(String url, Map<String, ?> configs) {
        TrustedPackages.allowGeneratedClasses();
        this.url = url == null ? "" : url.trim();
        this.apiUrl = apiUrl(this.url);
        this.compatibility = compatibility(configs.get(COMPATIBILITY));
        this.serdeConfig = apicurioConfig(apiUrl, configs);
        // One client for every serde of this factory and for the rule calls, so they share auth, TLS and retries.
        this.registry = RegistryClientFacadeFactory.create(new SchemaResolverConfig(serdeConfig));
    }

    @Override
    public <T extends SpecificRecord> Serde<T> serde(Class<T> type) {
        AvroKafkaDeserializer<T> deserializer = new AvroKafkaDeserializer<>(registry);
        deserializer.configure(serdeConfig, false);
        return Serdes.serdeFrom(new Writer<>(type), new Reader<>(type, deserializer));
    }

    @Override
    public String describe() {
        return "avro in the Confluent wire format (magic byte 0 + 4-byte schema id), schema registry " + url
                + ", subjects <topic>-value"
                + (compatibility == null ? "" : ", compatibility " + compatibility);
    }

    /** The URL as configured, for messages. */
    public String url() {
        return url;
    }

    /** The Apicurio REST API v3 URL the serdes call. */
    public String apiUrl() {
        return apiUrl;
    }

    /** Compatibility level set on new subjects, or null when the registry's own rule is left alone. */
    public String compatibility() {
        return compatibility;
    }

    /** Subject of a topic's values (TopicNameStrategy). */
    public static String subject(String topic) {
        return topic + "-value";
    }

    static String apiUrl(String url) {
        String trimmed = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        URI uri;
        try {
            uri = URI.create(trimmed);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(AvroSerdes.SCHEMA_REGISTRY_URL, url, "not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new ConfigException(AvroSerdes.SCHEMA_REGISTRY_URL, url,
                    "expected an http(s) URL of an Apicurio Registry 3, e.g. http://registry:8080");
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        int ccompat = path.indexOf("/apis/ccompat");
        if (ccompat >= 0) {
            String base = trimmed.substring(0, trimmed.indexOf(path)) + path.substring(0, ccompat);
            throw new ConfigException(AvroSerdes.SCHEMA_REGISTRY_URL, url, "this is the registry's "
                    + "Confluent-compatible API, which Kafka UI reads; the app registers schemas through Apicurio's "
                    + "own API: use " + base + " (or " + base + API_PATH + ")");
        }
        return path.isEmpty() ? trimmed + API_PATH : trimmed;
    }

    static String compatibility(Object configured) {
        if (configured == null) {
            return DEFAULT_COMPATIBILITY;
        }
        String level = configured.toString().trim().toUpperCase(Locale.ROOT);
        if (level.isEmpty()) {
            return null;
        }
        if (!LEVELS.contains(level)) {
            throw new ConfigException(COMPATIBILITY, configured, "expected one of " + LEVELS
                    + ", or empty to leave compatibility to the registry");
        }
        return level;
    }

    static Map<String, Object> apicurioConfig(String apiUrl, Map<String, ?> configs) {
        Map<String, Object> config = new HashMap<>();
        configs.forEach((key, value) -> {
            if (key.startsWith(APICURIO_PREFIX) && value != null) {
                config.put(key, value);
            }
        });
        // Explicit artifact coordinates would put every topic under one subject, and a v2 client would not
        // serve the rule calls: neither is allowed.
        config.keySet().removeIf(key -> key.startsWith(APICURIO_PREFIX + "artifact.")
                || key.equals(SchemaResolverConfig.REGISTRY_URL_VERSION));
        config.put(SchemaResolverConfig.REGISTRY_URL, apiUrl);
        config.putIfAbsent(SchemaResolverConfig.AUTO_REGISTER_ARTIFACT, "true");
        // The Confluent wire format: magic byte 0 + 4-byte id in the value, nothing in headers, binary body.
        // contentId is the id Apicurio's Confluent-compatible API serves (unless legacy-id-mode is on).
        config.put(SerdeConfig.ID_HANDLER, Default4ByteIdHandler.class.getName());
        config.put(SerdeConfig.USE_ID, IdOption.contentId.name());
        config.put(KafkaSerdeConfig.ENABLE_HEADERS, "false");
        config.put(AvroSerdeConfig.AVRO_ENCODING, AvroSerdeConfig.AVRO_ENCODING_BINARY);
        // Subject <topic>-value in the default group.
        config.put(SchemaResolverConfig.ARTIFACT_RESOLVER_STRATEGY, TopicIdStrategy.class.getName());
        // Register the whole schema, nested records and enums inline, as Confluent's serializer does; otherwise
        // Apicurio registers each nested named type as an artifact of its own and references it.
        config.put(SchemaResolverConfig.DEREFERENCE_SCHEMA, "true");
        // Decode into the generated class named by the writer's schema, resolved against the app's version.
        config.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, "true");
        return Map.copyOf(config);
    }

    /**
     * Sets the compatibility rule on a subject that has none, at most once per subject and factory. Returns false
     * when the subject does not exist yet: the caller registers the first version, then calls again.
     */
    private boolean ensureCompatibility(String subject) {
        if (compatibility == null || subjectsWithRule.contains(subject)) {
            return true;
        }
        CreateRule rule = new CreateRule();
        rule.setRuleType(RuleType.COMPATIBILITY);
        rule.setConfig(compatibility);
        try {
            ((RegistryClient) registry.getClient()).groups().byGroupId(DEFAULT_GROUP).artifacts()
                    .byArtifactId(subject).rules().post(rule);
            LOG.info("schema registry {}: subject {} set to {} compatibility", url, subject, compatibility);
        } catch (ApiException e) {
            if (e.getResponseStatusCode() == 404) {
                return false;
            }
            if (e.getResponseStatusCode() != 409) {
                throw new SerializationException("cannot set " + compatibility + " compatibility on subject "
                        + subject + " at schema registry " + url + ": " + describe(e), e);
            }
            LOG.info("schema registry {}: subject {} already has a compatibility rule, kept as is", url, subject);
        } catch (RuntimeException e) {
            throw new SerializationException("cannot set " + compatibility + " compatibility on subject " + subject
                    + " at schema registry " + url + ": " + describe(e), e);
        }
        subjectsWithRule.add(subject);
        return true;
    }

    /** What went wrong, in one line: the registry's problem details, a connection failure, or the root cause. */
    static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ProblemDetails p) {
                return problem(p.getStatus(), p.getResponseStatusCode(), p.getTitle(), p.getName(), p.getDetail());
            }
            if (t instanceof RuleViolationProblemDetails p) {
                String causes = p.getCauses() == null ? "" : p.getCauses().stream()
                        .map(c -> c.getDescription() + (c.getContext() == null ? "" : " at " + c.getContext()))
                        .collect(Collectors.joining("; ", " causes: ", ""));
                return problem(p.getStatus(), p.getResponseStatusCode(), p.getTitle(), p.getName(), p.getDetail())
                        + (causes.equals(" causes: ") ? "" : causes);
            }
            if (t instanceof ConnectException || t instanceof UnknownHostException) {
                return "registry unreachable (" + t.getClass().getSimpleName()
                        + (t.getMessage() == null ? "" : ": " + t.getMessage()) + ")";
            }
            if (t instanceof ApiException api && api.getResponseStatusCode() > 0) {
                return "HTTP " + api.getResponseStatusCode() + " " + SingleObjectAvroSerdeFactory.describe(api);
            }
        }
        return e instanceof Exception ex ? SingleObjectAvroSerdeFactory.describe(ex) : e.toString();
    }

    /**
     * One Apicurio serializer per topic: its schema cache is keyed by schema content, so a single instance would
     * register a schema under the first topic's subject only and reuse that id for every other topic, whose
     * subject would then never exist (found with apicurio-registry-avro-serde-kafka 3.1.7).
     */
    private final class Writer<T extends SpecificRecord> implements Serializer<T> {
        private final Class<T> type;
        private final Map<String, AvroKafkaSerializer<T>> byTopic = new ConcurrentHashMap<>();

        Writer(Class<T> type) {
            this.type = type;
        }

        private AvroKafkaSerializer<T> delegate(String topic) {
            return byTopic.computeIfAbsent(topic, t -> {
                AvroKafkaSerializer<T> serializer = new AvroKafkaSerializer<>(registry);
                serializer.configure(serdeConfig, false);
                return serializer;
            });
        }

        @Override
        public byte[] serialize(String topic, T data) {
            if (data == null) {
                return null;
            }
            String subject = subject(topic);
            boolean ruleSet = ensureCompatibility(subject);
            byte[] bytes;
            try {
                bytes = delegate(topic).serialize(topic, data);
            } catch (RuntimeException e) {
                throw new SerializationException("cannot register the schema of " + type.getName()
                        + " under subject " + subject + " at schema registry " + url + ": " + describe(e), e);
            }
            if (!ruleSet && !ensureCompatibility(subject)) {
                LOG.warn("schema registry {}: subject {} still not found after registering a version; "
                        + "no compatibility rule set", url, subject);
            }
            return bytes;
        }

        @Override
        public void close() {
            byTopic.values().forEach(AvroKafkaSerializer::close);
            byTopic.clear();
        }
    }

    private final class Reader<T extends SpecificRecord> implements Deserializer<T> {
        private final Class<T> type;
        private final AvroKafkaDeserializer<T> delegate;

        Reader(Class<T> type, AvroKafkaDeserializer<T> delegate) {
            this.type = type;
            this.delegate = delegate;
        }

        @Override
        public T deserialize(String topic, byte[] data) {
            if (data == null) {
                return null;
            }
            if (data.length < HEADER_SIZE || data[0] != MAGIC_BYTE) {
                throw new SerializationException("value on " + topic + " is not in the Confluent wire format "
                        + "(expected magic byte 0x00 and a 4-byte schema id, got " + head(data) + ")"
                        + (data.length >= 2 && data[0] == (byte) 0xC3 && data[1] == 0x01
                        ? ": it is Avro single-object encoding (C3 01), written without a schema registry" : ""));
            }
            int id = ByteBuffer.wrap(data, 1, 4).getInt();
            Object value;
            try {
                value = delegate.deserialize(topic, data);
            } catch (RuntimeException e) {
                throw new SerializationException("cannot decode the value on " + topic + " written with schema id "
                        + id + " (schema registry " + url + "): " + describe(e), e);
            }
            if (!type.isInstance(value)) {
                throw new SerializationException("value on " + topic + " (schema id " + id + ") is a "
                        + (value == null ? "null" : value.getClass().getName()) + ", expected " + type.getName());
            }
            return type.cast(value);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    private static String problem(Integer status, int responseStatus, String title, String name, String detail) {
        String what = title != null ? title : name;
        return "HTTP " + (status != null ? status : responseStatus) + (what == null ? "" : " " + what)
                + (detail == null || detail.equals(what) ? "" : " (" + detail + ")");
    }

    private static String head(byte[] data) {
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < Math.min(data.length, HEADER_SIZE); i++) {
            hex.append(i == 0 ? "" : " ").append(String.format("%02X", data[i]));
        }
        return data.length == 0 ? "an empty value" : hex + (data.length > HEADER_SIZE ? " ..." : "");
    }
}
