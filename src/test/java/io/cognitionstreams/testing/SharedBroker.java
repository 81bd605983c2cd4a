package io.cognitionstreams.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.security.SecretsDir;

/**
 * One real embedded broker for every integration test in the JVM (starting one costs seconds). Tests that share it
 * use their own application ids and session ids, so they never read each other's records. With
 * {@code -Dcognition.it.secure=true} it requires logins and enforces ACLs ({@link Logins}).
 */
public final class SharedBroker implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == EmbeddedKafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(SharedBroker.class, key -> new Holder(), Holder.class).broker;
    }

    private static final class Holder implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        private final Path dir;
        private final EmbeddedKafkaBroker broker;

        Holder() {
            try {
                dir = Files.createTempDirectory("cognition-it-broker");
                if (Logins.SECURE) {
                    SecretsDir secrets = Logins.secrets(dir.resolve("secrets"));
                    broker = EmbeddedKafkaBroker.start(new BrokerSettings(dir.resolve("kafka"), 0, 0,
                            Duration.ofSeconds(60), Optional.of(secrets.saslUsers())));
                    Logins.secured(broker.bootstrapServers(), secrets);
                    // In the test's log, so a run shows which broker it had.
                    System.err.println("shared broker secured at " + broker.bootstrapServers() + ": SCRAM logins, "
                            + "ACLs; client files in " + dir.resolve("secrets"));
                } else {
                    broker = EmbeddedKafkaBroker.start(new BrokerSettings(dir, 0, 0, Duration.ofSeconds(60)));
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The broker's log directory goes with it: a suite run starts dozens, hundreds of MB each. */
        @Override
        public void close() throws IOException {
            broker.close();
            Utils.delete(dir.toFile());
        }
    }
}
