package io.cognitionstreams.serde;

import java.util.Map;

/**
 * Chooses the value wire format from configuration: registry-less unless a schema registry URL is set, and then the
 * Confluent wire format through {@link RegistryAvroSerdeFactory}, which also reads
 * {@link RegistryAvroSerdeFactory#COMPATIBILITY} and {@code apicurio.registry.*} keys from the same map.
 */
public final class AvroSerdes {

    /**
     * Config key (in the Streams and client configs) naming the schema registry: an Apicurio Registry 3, whose
     * Confluent-compatible API serves the ids written in the values (see docs/serialization.md).
     */
    public static final String SCHEMA_REGISTRY_URL = "cognition.schema.registry.url";

    private AvroSerdes() {
    }

    /** For a registry URL given directly (CLI flags, settings) rather than in a config map. */
    public static AvroSerdeFactory forRegistry(java.util.Optional<String> url) {
        return fromConfig(url.<Map<String, Object>>map(u -> Map.of(SCHEMA_REGISTRY_URL, u)).orElse(Map.of()));
    }

    /**
     * Whether a serde failed because the registry could not be reached, not because of the record. Such a record
     * is not bad input: it must be retried once the registry is back, never dead-lettered.
     */
    public static boolean isRegistryOutage(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof java.net.UnknownHostException
                    || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.http.HttpTimeoutException) {
                return true;
            }
        }
        return false;
    }

    public static AvroSerdeFactory fromConfig(Map<String, ?> configs) {
        Object url = configs.get(SCHEMA_REGISTRY_URL);
        if (url == null || url.toString().isBlank()) {
            return new SingleObjectAvroSerdeFactory();
        }
        return new RegistryAvroSerdeFactory(url.toString(), configs);
    }
}
