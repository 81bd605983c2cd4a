package io.cognitionstreams.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.council.CouncilEnvelope;
import io.cognitionstreams.council.CouncilIds;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.CouncilSeal;

class RoutingTopologyTest {

    @TempDir
    Path stateDir;

    /** With two tenants' channels, as `run --secure` has them: other sessions must route as they did beside them. */
    private final Topics topics = Drivers.topics(List.of("tenant-a", "tenant-b"));
    private TopologyTestDriver driver;
    private TestInputTopic<String, LlmOutput> outputs;
    private final Map<Channel, TestOutputTopic<String, RoutedBlock>> channels = new EnumMap<>(Channel.class);
    private TestOutputTopic<String, ToolCall> toolCalls;
    private TestOutputTopic<String, DeadLetter> deadLetters;
    private TestOutputTopic<String, PipelineEvent> events;
    private TestOutputTopic<String, CouncilMessage> council;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        RoutingTopology.build(builder, topics, new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults()),
                CouncilSeal.NONE);
        driver = Drivers.driver(builder.build(), stateDir);
        outputs = TopicDriver.input(driver, topics.llmOutputs);
        for (Channel channel : Channel.values()) {
            channels.put(channel, TopicDriver.output(driver, topics.channel(channel)));
        }
        toolCalls = TopicDriver.output(driver, topics.toolCalls);
        deadLetters = TopicDriver.output(driver, topics.deadLetters);
        events = TopicDriver.output(driver, topics.events);
        council = TopicDriver.output(driver, topics.councilMessages);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void eachBlockReachesExactlyItsChannelsInOrderWithItsLineage() {
        outputs.pipeInput("s1", Records.output("s1",
                "PLAN: 1. look\nEXECUTE: ls\nRESPONSE: here it is\nTHOUGHT_SEED: later\nVERIFY: ok").build());

        assertThat(markers(Channel.CLI_CHAT)).containsExactly(Marker.PLAN, Marker.RESPONSE, Marker.VERIFY);
        assertThat(markers(Channel.WEB_CHAT)).containsExactly(Marker.RESPONSE, Marker.VERIFY);
        assertThat(markers(Channel.DISCORD_CHAT)).containsExactly(Marker.RESPONSE, Marker.VERIFY);
        assertThat(markers(Channel.COUNCIL_CHAT)).containsExactly(Marker.PLAN, Marker.THOUGHT_SEED, Marker.VERIFY);
        assertThat(markers(Channel.MEMORY)).containsExactly(Marker.THOUGHT_SEED, Marker.VERIFY);
        assertThat(channels.get(Channel.SHELL).isEmpty()).as("EXECUTE never goes straight to the shell").isTrue();

        ToolCall call = toolCalls.readValue();
        assertThat(call.getTool()).isEqualTo(OutputRouter.SHELL_TOOL);
        assertThat(call.getArguments()).isEqualTo("{\"command\":\"ls\"}");
        assertThat(call.getCallId()).isEqualTo("s1-out#1");
        assertThat(call.getCaller()).isEqualTo(OutputRouter.NO_SKILL_CALLER);
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void aTenantsSessionIsAnsweredOnItsTenantsChatChannelsAndEscalatesAndRemembersOnTheSharedOnes() {
        TestOutputTopic<String, RoutedBlock> tenantCli = TopicDriver.output(driver,
                topics.channel("tenant-a", Channel.CLI_CHAT));
        TestOutputTopic<String, RoutedBlock> tenantWeb = TopicDriver.output(driver,
                topics.channel("tenant-a", Channel.WEB_CHAT));
        TestOutputTopic<String, RoutedBlock> otherTenantsCli = TopicDriver.output(driver,
                topics.channel("tenant-b", Channel.CLI_CHAT));

        outputs.pipeInput("tenant-a.chat-1", Records.output("tenant-a.chat-1",
                "PLAN: 1. look\nRESPONSE: here it is\nVERIFY: ok").build());
        outputs.pipeInput("s1", Records.output("s1", "RESPONSE: for a session of no tenant").build());

        assertThat(tenantCli.readValuesToList()).extracting(RoutedBlock::getMarker, RoutedBlock::getSessionId)
                .containsExactly(tuple(Marker.PLAN, "tenant-a.chat-1"), tuple(Marker.RESPONSE, "tenant-a.chat-1"),
                        tuple(Marker.VERIFY, "tenant-a.chat-1"));
        assertThat(tenantWeb.readValuesToList()).extracting(RoutedBlock::getMarker)
                .containsExactly(Marker.RESPONSE, Marker.VERIFY);
        assertThat(otherTenantsCli.isEmpty()).isTrue();
        assertThat(channels.get(Channel.CLI_CHAT).readValuesToList()).extracting(RoutedBlock::getSessionId)
                .containsExactly("s1");
        assertThat(channels.get(Channel.WEB_CHAT).readValuesToList()).extracting(RoutedBlock::getSessionId)
                .containsExactly("s1");
        // The council's channel is cross-tenant, and memory the app's own input.
        assertThat(markers(Channel.COUNCIL_CHAT)).containsExactly(Marker.PLAN, Marker.VERIFY);
        assertThat(markers(Channel.MEMORY)).containsExactly(Marker.VERIFY);
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void blocksKeepLineageAndPosition() {
        outputs.pipeInput("s1", Records.output("s1", "PLAN: a\nRESPONSE: b").setParentId("p0").build());

        List<RoutedBlock> cli = channels.get(Channel.CLI_CHAT).readValuesToList();
        assertThat(cli).extracting(RoutedBlock::getSequence).containsExactly(0, 1);
        assertThat(cli).allSatisfy(block -> {
            assertThat(block.getBlockCount()).isEqualTo(2);
            assertThat(block.getPacketId()).isEqualTo("0a1b2c3d");
            assertThat(block.getParentId()).isEqualTo("p0");
            assertThat(block.getRequestId()).isEqualTo("s1-r1");
            assertThat(block.getSessionId()).isEqualTo("s1");
            assertThat(block.getChannel()).isEqualTo("cli_chat");
        });
    }

    @Test
    void aMemoryBlockCarriesItsTurnsMemoryScope() {
        outputs.pipeInput("s1", Records.output("s1", "THOUGHT_SEED: a checklist could be a skill")
                .setMemoryScope("tenant-a").build());
        outputs.pipeInput("s2", Records.output("s2", "VERIFY: done").build());

        assertThat(channels.get(Channel.MEMORY).readValuesToList()).extracting(RoutedBlock::getSessionId,
                RoutedBlock::getMemoryScope).containsExactly(tuple("s1", "tenant-a"), tuple("s2", null));
    }

    @Test
    void aReplayedTurnsCallNamesTheOriginalCallAtTheSamePlace() {
        outputs.pipeInput("s1", Records.output("s1", "PLAN: a\nEXECUTE: git tag v2\nRESPONSE: mail "
                + "jane.doe@example.com").setParentId("pk1").setTimeTravel(TimeTravel.REPLAY).setOriginSessionId("s1")
                .build());
        outputs.pipeInput("s1", Records.output("s1", "EXECUTE: ls").setParentId("pk2").build());

        ToolCall replayed = toolCalls.readValue();
        assertThat(replayed.getTimeTravel()).isEqualTo(TimeTravel.REPLAY);
        assertThat(replayed.getParentId()).as("the original output of packet pk1, block 1").isEqualTo("pk1-out#1");
        assertThat(replayed.getOriginSessionId()).isEqualTo("s1");
        assertThat(channels.get(Channel.CLI_CHAT).readValuesToList()).as("every block of the replayed turn")
                .hasSize(2).allSatisfy(block -> {
                    assertThat(block.getTimeTravel()).isEqualTo(TimeTravel.REPLAY);
                    assertThat(block.getParentId()).isEqualTo("pk1");
                    assertThat(block.getOriginSessionId()).isEqualTo("s1");
                });
        PipelineEvent redaction = events.readValue();
        assertThat(redaction.getTimeTravel()).isEqualTo(TimeTravel.REPLAY);
        assertThat(redaction.getParentId()).isEqualTo("pk1");
        assertThat(redaction.getOriginSessionId()).isEqualTo("s1");
        ToolCall live = toolCalls.readValue();
        assertThat(live.getTimeTravel()).isNull();
        assertThat(live.getParentId()).as("a live turn (an AutoFix retry has a parent too) re-runs nothing").isNull();
    }

    @Test
    void aSkillsExecuteBlockIsCalledUnderThatSkill() {
        outputs.pipeInput("s1", Records.output("s1", "EXECUTE: git status").setActiveSkill("git").build());

        ToolCall call = toolCalls.readValue();
        assertThat(call.getSkill()).isEqualTo("git");
        assertThat(call.getCaller()).isEqualTo("git");
    }

    @Test
    void badOutputsAreDeadLetteredAndTheNextOneIsStillRouted() {
        TestInputTopic<String, byte[]> raw = TopicDriver.raw(driver, topics.llmOutputs);
        raw.pipeInput("s1", new byte[] {(byte) 0xC3, 0x01, 1, 2, 3});
        outputs.pipeInput("s1", Records.output("s1", "x".repeat(OutputRouter.MAX_OUTPUT_BYTES + 1)).build());
        outputs.pipeInput("s2", Records.output("s2", "RESPONSE: fine").build());

        // The undecodable record's letter is not visible here (TopologyTestDriver drops what a deserialization
        // handler returns); PipelineIT sees it on a real broker. The oversized one is a processing-time letter.
        List<DeadLetter> letters = deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getErrorKind).containsExactly(ErrorKind.VALIDATION);
        assertThat(letters.get(0).getReason()).contains("over the limit of " + OutputRouter.MAX_OUTPUT_BYTES);
        assertThat(letters.get(0).getSourceOffset()).isEqualTo(1L);
        assertThat(new String(letters.get(0).getKey().array(), StandardCharsets.UTF_8)).isEqualTo("s1");
        assertThat(channels.get(Channel.WEB_CHAT).readValuesToList()).extracting(RoutedBlock::getText)
                .containsExactly("fine");
    }

    @Test
    void anOutputOfMoreBlocksOrRecordsThanTheLimitsIsOneDeadLetterAndNothingOfItIsRouted() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            many.append("INTERRUPT: ").append(i % 10).append('\n');
        }
        outputs.pipeInput("s1", Records.output("s1", many.toString()).build());
        // 200 blocks are within the block limit, but each RESPONSE goes to three channels: 600 records + 2.
        outputs.pipeInput("s1", Records.output("s1", "RESPONSE: hi\n".repeat(200)).setOutputId("s1-wide").build());
        outputs.pipeInput("s2", Records.output("s2", "INTERRUPT:\n".repeat(45_454) + "RESPONSE: fine").build());

        assertThat(deadLetters.readValuesToList()).extracting(DeadLetter::getReason).containsExactly(
                "llm output has 20000 blocks, over the limit of 256 per output (--max-blocks-per-output)");
        assertThat(channels.get(Channel.CLI_CHAT).readValuesToList()).extracting(RoutedBlock::getSessionId)
                .as("the wide output is within the default limits; the empty interrupts of s2 are one block")
                .containsOnly("s1", "s2").hasSize(200 + 2);
        assertThat(council.readValuesToList()).as("one output's interrupts never escalate by themselves").isEmpty();

        StreamsBuilder builder = new StreamsBuilder();
        RoutingTopology.build(builder, topics, new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults(),
                new RoutingLimits(256, 500)), CouncilSeal.NONE);
        try (TopologyTestDriver narrow = Drivers.driver(builder.build(), stateDir.resolve("narrow"))) {
            TopicDriver.input(narrow, topics.llmOutputs)
                    .pipeInput("s1", Records.output("s1", "RESPONSE: hi\n".repeat(200)).build());
            assertThat(TopicDriver.output(narrow, topics.deadLetters).readValuesToList())
                    .extracting(DeadLetter::getReason).containsExactly("llm output would become 602 records (200 "
                            + "blocks on their channels), over the limit of 500 per output (--max-records-per-output)");
            assertThat(TopicDriver.output(narrow, topics.channel(Channel.CLI_CHAT)).isEmpty()).isTrue();
        }
    }

    @Test
    void aBlockItsChannelCouldNotTakeRefusesTheWholeOutputBeforeAnyOfItIsWritten() {
        OutputLimits.TopicLimits small = new OutputLimits.TopicLimits(64 * 1024, Optional.empty(), Optional.empty());
        Topics narrowTopics = new Topics(new SingleObjectAvroSerdeFactory(), new OutputLimits(
                OutputLimits.DEFAULT_MAX_REQUEST_BYTES, Map.of(Topics.channelTopic(Channel.WEB_CHAT), small)));
        StreamsBuilder builder = new StreamsBuilder();
        RoutingTopology.build(builder, narrowTopics,
                new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults()), CouncilSeal.NONE);
        try (TopologyTestDriver narrow = Drivers.driver(builder.build(), stateDir.resolve("narrow"))) {
            TopicDriver.input(narrow, narrowTopics.llmOutputs).pipeInput("s1", Records.output("s1",
                    "PLAN: short\nRESPONSE: " + "a@b.io ".repeat(8_000)).build());

            assertThat(TopicDriver.output(narrow, narrowTopics.deadLetters).readValuesToList())
                    .extracting(DeadLetter::getReason).singleElement().asString()
                    .startsWith("block 1 would be").endsWith("bytes on channel.web_chat, which takes "
                            + narrowTopics.limits().maxValueBytes(Topics.channelTopic(Channel.WEB_CHAT)));
            assertThat(TopicDriver.output(narrow, narrowTopics.channel(Channel.CLI_CHAT)).isEmpty())
                    .as("not even the plan, which fits").isTrue();
        }
    }

    @Test
    void piiIsScrubbedFromEveryChannelAndSecretsFromTheCommandWhichKeepsItsAddresses() {
        outputs.pipeInput("s1", Records.output("s1", "RESPONSE: mail jane.doe@example.com or call +44 20 7946 0958,"
                + " card 4111 1111 1111 1111.\nEXECUTE: curl -H 'Authorization: Bearer sk-proj-abcdefghijklmnop"
                + "qrstuvwxyz0123' https://api.example.com").build());

        RoutedBlock response = channels.get(Channel.WEB_CHAT).readValue();
        assertThat(response.getText()).doesNotContain("jane.doe", "7946", "4111")
                .contains("[REDACTED:EMAIL]", "[REDACTED:PHONE]", "[REDACTED:CARD]");
        assertThat(response.getRedactions()).containsEntry("EMAIL", 1).containsEntry("PHONE", 1)
                .containsEntry("CARD", 1);
        PipelineEvent event = events.readValue();
        assertThat(event.getType()).isEqualTo(OutputRouter.REDACTION_EVENT);
        assertThat(event.getAttributes()).containsEntry("EMAIL", "1").containsEntry("CARD", "1");
        assertThat(event.getAttributes()).containsEntry("API_KEY", "1");
        assertThat(toolCalls.readValue().getArguments()).doesNotContain("sk-proj-abcdefghijklmnop")
                .contains("[REDACTED:API_KEY]", "https://api.example.com");
    }

    @Test
    void twoAnswersToOnePacketGiveTwoRedactionEventsEachNamedByWhereItsAnswerWasRead() {
        LlmOutput answer = Records.output("s1", "RESPONSE: mail jane.doe@example.com").build();
        outputs.pipeInput("s1", answer);
        outputs.pipeInput("s1", LlmOutput.newBuilder(answer).setText("RESPONSE: mail john.roe@example.com").build());

        assertThat(events.readValuesToList()).extracting(PipelineEvent::getEventId)
                .containsExactly("llm.outputs-0@0/REDACTION", "llm.outputs-0@1/REDACTION");
    }

    @Test
    void threeInterruptsInARowRaiseExactlyOneEscalationAcrossOutputs() {
        outputs.pipeInput("s1", Records.output("s1", "INTERRUPT: one\nTHOUGHT_SEED: aside").setOutputId("o1").build());
        outputs.pipeInput("s1", Records.output("s1", "INTERRUPT: two").setOutputId("o2").build());
        outputs.pipeInput("s2", Records.output("s2", "INTERRUPT: other session").setOutputId("x1").build());
        outputs.pipeInput("s1", Records.output("s1", "INTERRUPT: three\nINTERRUPT: four").setOutputId("o3").build());

        List<org.apache.kafka.streams.test.TestRecord<String, CouncilMessage>> escalations =
                council.readRecordsToList();
        assertThat(escalations).hasSize(1);
        CouncilMessage escalation = escalations.get(0).value();
        assertThat(escalations.get(0).key()).isEqualTo(CouncilIds.DEFAULT);
        assertThat(escalation.getType()).isEqualTo(CouncilMessageType.ESCALATION);
        assertThat(escalation.getRiskLevel()).isEqualTo(RiskLevel.HIGH);
        assertThat(escalation.getSender()).isEqualTo(OutputRouter.SENDER);
        assertThat(escalation.getSessionId()).isEqualTo("s1");
        assertThat(escalation.getMsgId()).as("the block that completed the streak").isEqualTo("o3-interrupts-0");
        KeyValueStore<String, Integer> streaks = driver.getKeyValueStore(RoutingTopology.INTERRUPT_STORE);
        assertThat(streaks.get("s1")).isEqualTo(4);
        assertThat(streaks.get("s2")).isEqualTo(1);
    }

    @Test
    void withSignaturesRequiredTheEscalationIsSignedWithTheAppKeyAsTheCouncilChecksIt() {
        Ed25519.Key app = Ed25519.Key.generated();
        CouncilSettings required = CouncilSettings.defaults().withSignatures(CouncilSettings.Signatures.REQUIRED,
                Duration.ofMinutes(5));
        StreamsBuilder builder = new StreamsBuilder();
        RoutingTopology.build(builder, topics, new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults()),
                CouncilSignatures.seal(required, app));
        try (TopologyTestDriver signing = Drivers.driver(builder.build(), stateDir.resolve("signing"))) {
            TopicDriver.input(signing, topics.llmOutputs).pipeInput("s1",
                    Records.output("s1", "INTERRUPT: one\nINTERRUPT: two\nINTERRUPT: three").build());

            CouncilMessage escalation = TopicDriver.output(signing, topics.councilMessages).readValue();
            assertThat(escalation.getSigningKey()).isEqualTo(app.id());
            assertThat(CouncilSignatures.problem(escalation, app.publicKey(), Optional.empty())).isEmpty();
            assertThat(CouncilSignatures.problem(escalation, Ed25519.Key.generated().publicKey(), Optional.empty()))
                    .as("another app's key").isPresent();
        }
    }

    @Test
    void eachSessionsEscalationGoesToTheCouncilItsOutputNames() {
        String interrupts = "INTERRUPT: one\nINTERRUPT: two\nINTERRUPT: three";
        outputs.pipeInput("s1", Records.output("s1", interrupts).setCouncilId("billing").build());
        outputs.pipeInput("s2", Records.output("s2", interrupts).setCouncilId("platform").build());
        outputs.pipeInput("s3", Records.output("s3", interrupts).build());

        List<org.apache.kafka.streams.test.TestRecord<String, CouncilMessage>> escalations =
                council.readRecordsToList();
        assertThat(escalations).extracting(record -> record.key(), record -> record.value().getSessionId())
                .containsExactly(tuple("billing", "s1"), tuple("platform", "s2"), tuple(CouncilIds.DEFAULT, "s3"));
        // The council takes each under the key it arrives with: none is dead-lettered as mis-keyed.
        escalations.forEach(record -> assertThat(CouncilEnvelope.requireValid(record.key(), record.value(),
                CouncilSettings.defaults(), record.value().getTimestamp())).isNotNull());
    }

    @Test
    void twoStreaksEndingInOneOutputRaiseTwoEscalationsWithTheirOwnIds() {
        outputs.pipeInput("s1", Records.output("s1", "INTERRUPT: a\nINTERRUPT: b\nINTERRUPT: c\nRESPONSE: resumed\n"
                + "INTERRUPT: d\nINTERRUPT: e\nINTERRUPT: f").setOutputId("o1").build());

        assertThat(council.readValuesToList()).extracting(CouncilMessage::getMsgId)
                .containsExactly("o1-interrupts-2", "o1-interrupts-6");
    }

    /**
     * docs/council.md, "Contract for marker routing", shows an output and the escalation routing sends for it: the
     * two JSON lines there, fed through the topology, must be exactly what it writes, under the key it names.
     */
    @Test
    void theEscalationIsExactlyTheOneDocsCouncilMdShows() throws Exception {
        List<String> example = jsonLinesOfSection(Path.of("docs", "council.md"),
                "### Contract for marker routing (3 consecutive INTERRUPTs)");
        assertThat(example).as("the output, then its escalation").hasSize(2);
        LlmOutput output = JsonAvro.fromJson(example.get(0), LlmOutput.class);
        CouncilMessage documented = JsonAvro.fromJson(example.get(1), CouncilMessage.class);

        outputs.pipeInput(output.getSessionId(), output);

        org.apache.kafka.streams.test.TestRecord<String, CouncilMessage> sent = council.readRecord();
        assertThat(JsonAvro.toJson(sent.value())).isEqualTo(example.get(1));
        assertThat(sent.key()).isEqualTo(documented.getCouncilId());
        assertThat(council.isEmpty()).isTrue();
    }

    /** The JSON lines in json code blocks under {@code heading}, up to the next heading of any level. */
    private static List<String> jsonLinesOfSection(Path doc, String heading) throws IOException {
        List<String> lines = Files.readAllLines(doc);
        int start = lines.indexOf(heading);
        assertThat(start).as("%s has the section %s", doc, heading).isNotNegative();
        List<String> json = new ArrayList<>();
        boolean inJson = false;
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("#")) {
                break;
            }
            if (line.startsWith("```")) {
                inJson = !inJson && line.equals("```json");
            } else if (inJson && line.startsWith("{")) {
                json.add(line);
            }
        }
        return json;
    }

    @Test
    void workBetweenInterruptsEndsTheStreak() {
        outputs.pipeInput("s1", Records.output("s1", "INTERRUPT: one\nINTERRUPT: two").setOutputId("o1").build());
        outputs.pipeInput("s1", Records.output("s1", "RESPONSE: resumed").setOutputId("o2").build());
        outputs.pipeInput("s1", Records.output("s1", "INTERRUPT: three").setOutputId("o3").build());
        assertThat(council.isEmpty()).isTrue();

        outputs.pipeInput("s1", Records.output("s1", "INTERRUPT: four\nINTERRUPT: five").setOutputId("o4").build());
        assertThat(council.readValuesToList()).extracting(CouncilMessage::getMsgId).containsExactly("o4-interrupts-1");
    }

    private List<Marker> markers(Channel channel) {
        return channels.get(channel).readValuesToList().stream().map(RoutedBlock::getMarker).toList();
    }
}
