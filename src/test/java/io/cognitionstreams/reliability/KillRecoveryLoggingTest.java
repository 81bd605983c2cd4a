package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.testing.LogConfigurations;

/**
 * What the app's log configuration lets through of Kafka Streams restoring the tasks a kill left without a checkpoint:
 * one line a capability, not four a task; and still any other exception among them. The messages are Kafka 4.3.1's,
 * as a start after a kill logged them.
 */
class KillRecoveryLoggingTest {

    private static final String INTERNALS = "org.apache.kafka.streams.processor.internals.";
    private static final String CLIENT = "stream-client [cognition-streams-routing-27601fd0] ";
    private static final String THREAD = "stream-thread [cognition-streams-routing-27601fd0-StreamThread-1] ";
    private static final String TASKS_CORRUPTED = "Tasks [%s] are corrupted and hence need to be re-initialized";
    private static final String CORRUPTED = "org.apache.kafka.streams.errors.TaskCorruptedException: "
            + TASKS_CORRUPTED;

    private LoggerContext context;
    private List<String> logged;

    @BeforeEach
    void load() {
        context = LogConfigurations.load(LogConfigurations.APP);
        logged = LogConfigurations.captured(context);
    }

    @AfterEach
    void shutDown() {
        Configurator.shutdown(context);
    }

    @Test
    void aCapabilityRestoringItsTasksAfterAKillSaysSoOnce() {
        context.getLogger(INTERNALS + "ProcessorStateManager").warn(CLIENT + "State store interrupt-streaks did not "
                + "find checkpoint offsets while stores are not empty, since under EOS it has the risk of getting "
                + "uncommitted data in stores we have to treat it as a task corruption error and wipe out the local "
                + "state of task 0_2 before re-bootstrapping");
        context.getLogger(INTERNALS + "StateDirectory").warn("Failed to register startup state stores for task 0_2: "
                + TASKS_CORRUPTED.formatted("0_2"));
        context.getLogger(INTERNALS + "TaskManager").error(THREAD + "Get exceptions for the following tasks: {0_0="
                + CORRUPTED.formatted("0_0") + ", 0_2=" + CORRUPTED.formatted("0_2") + "}");
        context.getLogger(INTERNALS + "TaskManager").warn(THREAD + "Encounter corrupted task 0_0, will group it "
                + "with other corrupted tasks and handle together", new IllegalStateException("a trace"));
        context.getLogger(INTERNALS + "StreamThread").warn(THREAD + "Detected the states of tasks [0_0, 0_2] are "
                + "corrupted. Will close the task as dirty and re-create and bootstrap from scratch.");

        assertThat(logged).singleElement().asString().startsWith(THREAD + "Detected the states of tasks");
    }

    @Test
    void anotherExceptionAmongTheCorruptedTasksIsLogged() {
        String mixed = THREAD + "Get exceptions for the following tasks: {0_0=" + CORRUPTED.formatted("0_0")
                + ", 0_1=org.apache.kafka.streams.errors.StreamsException: a store could not be opened}";
        context.getLogger(INTERNALS + "TaskManager").error(mixed);
        context.getLogger(INTERNALS + "StateDirectory").warn("Failed to register startup state stores for task 0_1: "
                + "a store could not be opened");

        assertThat(logged).hasSize(2).first().isEqualTo(mixed);
    }
}
