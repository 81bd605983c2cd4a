package io.cognitionstreams.app;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/** The same scenario on a Kafka in a container; reported as skipped where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class PipelineContainerIT {

    /** The broker image of the Kafka version the project builds with (pom.xml's kafka.version, passed by failsafe). */
    @Container
    static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:"
            + System.getProperty("kafka.version", "4.3.1"));

    @Test
    void requestsFlowToTheChannelsAndBadRecordsToTheDeadLetterTopic(@TempDir Path stateDir) throws Exception {
        PipelineScenario.run(KAFKA.getBootstrapServers(), stateDir);
    }
}
