package io.cognitionstreams.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and how the embedded broker runs. A port of 0 picks a free port at start.
 *
 * @param dataDir        holds the cluster id and Kafka's log directory; reuse it to keep topics across restarts
 * @param brokerPort     port of the PLAINTEXT listener clients connect to
 * @param controllerPort port of the KRaft controller listener
 * @param readyTimeout   how long {@link EmbeddedKafkaBroker#start} waits for the broker to answer
 * @param sasl           when present, the broker requires SASL logins and authorizes every request by its ACLs
 */
public record BrokerSettings(Path dataDir, int brokerPort, int controllerPort, Duration readyTimeout,
                             Optional<SaslUsers> sasl) {

    /** An open broker: no authentication, no authorization. */
    public BrokerSettings(Path dataDir, int brokerPort, int controllerPort, Duration readyTimeout) {
        this(dataDir, brokerPort, controllerPort, readyTimeout, Optional.empty());
    }

    public BrokerSettings {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(sasl, "sasl");
        Objects.requireNonNull(readyTimeout, "readyTimeout");
        checkPort(brokerPort, "brokerPort");
        checkPort(controllerPort, "controllerPort");
        if (brokerPort != 0 && brokerPort == controllerPort) {
            throw new IllegalArgumentException("brokerPort and controllerPort must differ, both are " + brokerPort);
        }
        if (readyTimeout.isNegative() || readyTimeout.isZero()) {
            throw new IllegalArgumentException("readyTimeout must be positive, got " + readyTimeout);
        }
    }

    public static BrokerSettings defaults() {
        return new BrokerSettings(Path.of("data", "kafka"), 9092, 9093, Duration.ofSeconds(60));
    }

    private static void checkPort(int port, String name) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(name + " must be between 0 and 65535, got " + port);
        }
    }
}
