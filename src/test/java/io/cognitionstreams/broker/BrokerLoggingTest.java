package io.cognitionstreams.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.cognitionstreams.testing.LogConfigurations;

/**
 * What the app's log configuration (and the tests', which mirrors it) lets through of the embedded broker's
 * controller: not the registration race of a start after a kill, still every other request's error; nor the race of
 * the app's producers to create the transaction log.
 */
class BrokerLoggingTest {

    private static final String CONTROLLER_APIS = "kafka.server.ControllerApis";
    private static final String AUTO_TOPIC_CREATION = "kafka.server.DefaultAutoTopicCreationManager";

    @ParameterizedTest
    @ValueSource(strings = {LogConfigurations.APP, LogConfigurations.TESTS})
    void theControllersRegistrationRaceIsNotLoggedButOtherRequestErrorsAre(String configuration) {
        LoggerContext context = LogConfigurations.load(configuration);
        try {
            List<String> logged = LogConfigurations.captured(context);

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
        LoggerContext context = LogConfigurations.load(LogConfigurations.APP);
        try {
            List<String> logged = LogConfigurations.captured(context);

            context.getLogger(AUTO_TOPIC_CREATION).warn("Auto topic creation failed for __transaction_state with "
                    + "error 'TOPIC_ALREADY_EXISTS': Topic '__transaction_state' already exists.");
            context.getLogger(AUTO_TOPIC_CREATION).warn("Auto topic creation failed for __transaction_state with "
                    + "error 'INVALID_REPLICATION_FACTOR': Replication factor: 3 larger than available brokers: 1.");

            assertThat(logged).singleElement().asString().contains("INVALID_REPLICATION_FACTOR");
        } finally {
            Configurator.shutdown(context);
        }
    }
}
