package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.Pipeline;
import io.cognitionstreams.model.PromptRenderer;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topics;

class AssemblyTopologyTest {

    @TempDir
    Path stateDir;

    private final Topics topics = Drivers.topics();
    private TopologyTestDriver driver;
    private TestInputTopic<String, CognitionRequest> requests;
    private TestInputTopic<String, byte[]> rawRequests;
    private TestOutputTopic<String, CognitionPacket> packets;
    private TestOutputTopic<String, DeadLetter> deadLetters;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        AssemblyTopology.build(builder, topics, Pipeline.Parts.defaults().assembler());
        driver = Drivers.driver(builder.build(), stateDir);
        requests = TopicDriver.input(driver, topics.requests);
        rawRequests = TopicDriver.raw(driver, topics.requests);
        packets = TopicDriver.output(driver, topics.packets);
        deadLetters = TopicDriver.output(driver, topics.deadLetters);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void assemblesAPacketCountedInTheTargetModelsEncoding() {
        requests.pipeInput("s1", Records.request("s1", "Plan the deploy of release 2.4.0.").build());

        TestRecord<String, CognitionPacket> record = packets.readRecord();
        CognitionPacket packet = record.value();
        assertThat(record.key()).isEqualTo("s1");
        assertThat(packet.getSessionId()).isEqualTo("s1");
        assertThat(packet.getEncoding()).isEqualTo("o200k_base");
        assertThat(packet.getMtu()).isEqualTo(PacketAssembler.DEFAULT_MTU);
        assertThat(packet.getMeta().getPacketId()).matches("[0-9a-f]{8}");
        assertThat(packet.getHeader().getIdentity()).isEqualTo(IdentityDefaults.TEXT);
        assertThat(packet.getHeader().getTaskInstructionKey()).isEqualTo("initial_planning");
        assertThat(packet.getPayload().getUserPrompt()).isEqualTo("Plan the deploy of release 2.4.0.");
        var counter = new Tokenizers().forModel("gpt-4o");
        assertThat(packet.getFieldTokens().get("user_prompt"))
                .isEqualTo(counter.count("Plan the deploy of release 2.4.0."));
        assertThat(packet.getTotalTokens())
                .isEqualTo(counter.count(PromptRenderer.systemPrompt(packet.getHeader()))
                        + counter.count("Plan the deploy of release 2.4.0."))
                .isLessThanOrEqualTo(packet.getMtu());
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void theSameRequestGivesTheSamePacketBytes() {
        CognitionRequest request = Records.request("s1", "Explain the plan.").build();
        requests.pipeInput("s1", request);
        requests.pipeInput("s1", request);

        List<CognitionPacket> both = packets.readValuesToList();
        byte[] first = topics.packets.valueSerde().serializer().serialize("t", both.get(0));
        byte[] second = topics.packets.valueSerde().serializer().serialize("t", both.get(1));
        assertThat(first).isEqualTo(second);
    }

    /*
     * TopologyTestDriver drops the records a deserialization handler returns (it has no record collector there), so
     * these two tests check that the stream goes on; DeadLetterHandlerTest checks the letter itself and PipelineIT
     * sees it arrive on cognition.dlq of a real broker.
     */
    @Test
    void bytesThatAreNotAvroAreSkippedAndTheNextRequestIsStillAnswered() {
        rawRequests.pipeInput("s1", "not avro at all".getBytes(StandardCharsets.UTF_8));
        requests.pipeInput("s2", Records.request("s2", "Still answered?").build());

        assertThat(packets.readValuesToList()).extracting(CognitionPacket::getSessionId).containsExactly("s2");
    }

    @Test
    void aTruncatedRecordIsSkippedAndTheNextRequestIsStillAnswered() {
        byte[] valid = topics.requests.valueSerde().serializer()
                .serialize(Topics.COGNITION_REQUESTS, Records.request("s1", "hello").build());
        rawRequests.pipeInput("s1", Arrays.copyOf(valid, valid.length - 8));
        requests.pipeInput("s2", Records.request("s2", "Still answered?").build());

        assertThat(packets.readValuesToList()).extracting(CognitionPacket::getSessionId).containsExactly("s2");
    }

    @Test
    void invalidRequestsAreValidationDeadLettersWithTheRuleTheyBroke() {
        requests.pipeInput("s1", Records.request("", "no session").build());
        requests.pipeInput("s1", Records.request("s1", "   ").build());
        requests.pipeInput("s1", Records.request("s1", "x".repeat(RequestValidator.MAX_PROMPT_CHARS + 1)).build());
        requests.pipeInput("s1", Records.request("s1", "tiny mtu").setMtu(10).build());
        requests.pipeInput("s1", Records.request("s1", "bad key").setTaskInstructionKey("make_it_so").build());
        requests.pipeInput("s1", Records.request("s1", "negative").setRetryCount(-1).build());
        requests.pipeInput("s1", (CognitionRequest) null);
        requests.pipeInput("s9", Records.request("s9", "valid after all of them").build());

        List<DeadLetter> letters = deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getErrorKind).containsOnly(ErrorKind.VALIDATION);
        assertThat(letters).extracting(DeadLetter::getReason).containsExactly(
                "session_id is empty",
                "user_prompt is empty",
                "user_prompt has " + (RequestValidator.MAX_PROMPT_CHARS + 1) + " characters, over the limit of "
                        + RequestValidator.MAX_PROMPT_CHARS,
                "mtu 10 is outside 256..2000000",
                "unknown task_instruction_key 'make_it_so'; known: "
                        + TaskInstructions.defaults(new Tokenizers()).keys(),
                "retry_count -1 is negative",
                "cognition request is null (tombstones are not requests)");
        assertThat(letters).extracting(DeadLetter::getSourceOffset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(letters.get(0).getProcessor()).isEqualTo("validate-request");
        assertThat(packets.readValuesToList()).extracting(CognitionPacket::getSessionId).containsExactly("s9");
    }

    @Test
    void aPacketThatCannotFitItsMtuIsRefusedNotTruncated() {
        requests.pipeInput("s1", Records.request("s1", "word ".repeat(400)).setMtu(256).build());

        DeadLetter letter = deadLetters.readValue();
        assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
        assertThat(letter.getReason()).contains("over its MTU of 256");
        assertThat(packets.isEmpty()).isTrue();
    }
}
