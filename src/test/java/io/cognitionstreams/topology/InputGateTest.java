package io.cognitionstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Properties;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.StreamsSettings;
import io.cognitionstreams.deadletter.RefusedInputs;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Topics;

/** An input whose output the brokers refused is refused by the first processor it reaches, and only that one. */
class InputGateTest {

    private static final String APP = "gate-test";

    private final Topics topics = Drivers.topics();

    @TempDir
    Path stateDir;

    @Test
    void aRefusedInputIsOneLetterWithTheBrokersReasonAndNothingOfItIsForwarded() {
        Properties props = StreamsSettings.errorHandling();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        builder.stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .mapValues(output -> event(output), Named.as("to-event"))
                .to(topics.events.name(), topics.events.produced());
        RefusedInputs.remember(APP, Topics.LLM_OUTPUTS, 0, 1L, "RecordTooLargeException: too large");

        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(props), props)) {
            var outputs = TopicDriver.input(driver, topics.llmOutputs);
            outputs.pipeInput("s1", Records.output("s1", "first").build());
            outputs.pipeInput("s1", Records.output("s1", "refused").build());
            outputs.pipeInput("s1", Records.output("s1", "third").build());
            outputs.pipeInput("s1", Records.output("s1", "fourth").build());

            assertThat(TopicDriver.output(driver, topics.events).readRecordsToList()).extracting(TestRecord::value)
                    .extracting(PipelineEvent::getMessage).containsExactly("first", "third", "fourth");
            assertThat(TopicDriver.output(driver, topics.deadLetters).readValuesToList())
                    .extracting(DeadLetter::getErrorKind, DeadLetter::getSourceOffset, DeadLetter::getReason)
                    .containsExactly(org.assertj.core.api.Assertions.tuple(ErrorKind.VALIDATION, 1L,
                            "the brokers refused what this record led to: RecordTooLargeException: too large"));
        }
    }

    private static PipelineEvent event(LlmOutput output) {
        return PipelineEvent.newBuilder().setEventId(output.getOutputId()).setType("T").setSeverity(Severity.INFO)
                .setMessage(output.getText()).setTimestamp(output.getTimestamp()).build();
    }
}
