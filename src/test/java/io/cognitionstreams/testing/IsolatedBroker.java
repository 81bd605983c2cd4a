package io.cognitionstreams.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import io.cognitionstreams.broker.BrokerSettings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;

/**
 * A broker of the test class's own, for tests that put thousands of records on the app's topics (crash, soak,
 * scale-out, bench): on the shared broker every later test's new application would have to read through them
 * before reaching its own records.
 */
public final class IsolatedBroker implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == EmbeddedKafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        // Held by the class's context, so the broker stops when the class is done, not at the end of the run.
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()) {
            classContext = classContext.getParent().orElseThrow();
        }
        return classContext.getStore(ExtensionContext.Namespace.create(IsolatedBroker.class))
                .getOrComputeIfAbsent(Holder.class, key -> new Holder(), Holder.class).broker;
    }

    private static final class Holder implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        private final Path dir;
        private final EmbeddedKafkaBroker broker;

        Holder() {
            try {
                dir = Files.createTempDirectory("cognition-it-isolated");
                broker = EmbeddedKafkaBroker.start(new BrokerSettings(dir, 0, 0, Duration.ofSeconds(60)));
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
