package io.cognitionstreams.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the app's log configuration (and the tests', which mirrors it) lets through of the embedded broker's
 * controller: not the registration race of a start after a kill, still every other request's error; nor the race of
 * the app's producers to create the transaction log.
 */
class BrokerLoggingTest {

    private static final String CONTROLLER_APIS = "kafka.server.ControllerApis";
    private static final String AUTO_TOPIC_CREATION = "kafka.server.DefaultAutoTopicCreationManager";

    @ParameterizedTest
    @ValueSource(strings = {"src/main/resources/log4j2.xml", "src/test/resources/log4j2-test.xml"})
    void theControllersRegistrationRaceIsNotLoggedButOtherRequestErrorsAre(String configuration) {
        LoggerContext context = Configurator.initialize("broker-logging-" + configuration.hashCode(), null,
                Path.of(configuration).toUri());
        try {
            List<String> logged = captured(context);

            context.getLogger(CONTROLLER_APIS).error("[ControllerApis nodeId=1] Unexpected error handling request "
                    + "RequestHeader(apiKey=CONTROLLER_REGISTRATION, apiVersion=0, clientId=1, correlationId=0, "
                    + "headerVersion=2) -- ControllerRegistrationRequestData(controllerId=1)",
                    new IllegalStateException("The active controller appears to be node 1."));
            context.getLogger(CONTROLLER_APIS).error("[ControllerApis nodeId=1] Unexpected error handling request "
                    + "RequestHeader(apiKey=BROKER_HEARTBEAT, apiVersion=1, clientId=1, correlationId=7)");

            assertThat(logged).singleElement().asString().contains("apiKey=BROKER_HEARTBEAT");
        } finally {
            Configurator.shutdown(context);
        }
    }

    @Test
    void theTransactionLogCreatedByAnotherProducerFirstIsNotLoggedButOtherCreationFailuresAre() {
        LoggerContext context = Configurator.initialize("topic-creation-logging", null,
                Path.of("src/main/resources/log4j2.xml").toUri());
        try {
            List<String> logged = captured(context);

            context.getLogger(AUTO_TOPIC_CREATION).warn("Auto topic creation failed for __transaction_state with "
                    + "error 'TOPIC_ALREADY_EXISTS': Topic '__transaction_state' already exists.");
            context.getLogger(AUTO_TOPIC_CREATION).warn("Auto topic creation failed for __transaction_state with "
                    + "error 'INVALID_REPLICATION_FACTOR': Replication factor: 3 larger than available brokers: 1.");

            assertThat(logged).singleElement().asString().contains("INVALID_REPLICATION_FACTOR");
        } finally {
            Configurator.shutdown(context);
        }
    }

    /** What {@code context} logs from now on, whatever its appenders. */
    private static List<String> captured(LoggerContext context) {
        List<String> logged = new CopyOnWriteArrayList<>();
        AbstractAppender capture = new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                logged.add(event.getMessage().getFormattedMessage());
            }
        };
        capture.start();
        context.getConfiguration().getRootLogger().addAppender(capture, Level.ALL, null);
        context.updateLoggers();
        return logged;
    }
}
