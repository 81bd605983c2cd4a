package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.SessionUsage;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Lineage;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.CouncilSeal;

/**
 * Budgets on the loop: each answer's usage adds up in its session's state and on session.usage; once a budget is
 * spent the session no longer continues on its own, and the council hears of it once, with the figures, while what
 * an agent asks is still answered.
 */
class SessionBudgetsTest {

    private static final int AUTO_CONTINUE = 10;

    @TempDir
    Path stateDir;

    private final Topics topics = Drivers.topics();
    private final Tokenizers tokenizers = new Tokenizers();
    private TopologyTestDriver driver;
    private TestInputTopic<String, CognitionRequest> requests;
    private TestInputTopic<String, LlmOutput> outputs;
    private TestInputTopic<String, ToolResult> results;
    private TestOutputTopic<String, CognitionPacket> packets;
    private TestOutputTopic<String, CognitionRequest> nextTurns;
    private TestOutputTopic<String, CouncilMessage> council;
    private TestOutputTopic<String, PipelineEvent> events;
    private TestOutputTopic<String, SessionUsage> usage;

    private void start(SessionBudgets budgets) {
        StreamsBuilder builder = new StreamsBuilder();
        AssemblyTopology.build(builder, topics, new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                ContextLayers.defaults(AssemblyTopologyTest.PREFIX_COMPRESSOR), AssemblyTopologyTest.PREFIX_COMPRESSOR),
                EmbeddingModel.miniLm(MiniLmEmbedder.shared()), AUTO_CONTINUE, budgets,
                MemoryRetention.defaults(), CouncilSeal.NONE);
        driver = Drivers.driver(builder.build(), stateDir, Records.T0);
        requests = TopicDriver.input(driver, topics.requests);
        outputs = TopicDriver.input(driver, topics.llmOutputs);
        results = TopicDriver.input(driver, topics.toolResults);
        packets = TopicDriver.output(driver, topics.packets);
        nextTurns = TopicDriver.output(driver, topics.requests);
        council = TopicDriver.output(driver, topics.councilMessages);
        events = TopicDriver.output(driver, topics.events);
        usage = TopicDriver.output(driver, topics.sessionUsage);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void aSessionCrossingItsTokenBudgetStopsContinuingOnItsOwnAndEscalatesOnce() {
        start(new SessionBudgets(2_500, 0, Duration.ZERO));
        requests.pipeInput("s1", Records.request("s1", "Inspect the workspace.").setActiveSkill(null).build());
        // Each turn: the model answers with a tool call and 1,000 tokens of usage, the result comes in, and the
        // session goes on by itself until its budget is spent.
        int turns = 0;
        while (!packets.isEmpty()) {
            CognitionPacket packet = packets.readValue();
            nextTurns.readValuesToList();
            turns++;
            outputs.pipeInput("s1", answer(packet, 900, 100, 2_000));
            results.pipeInput("s1", result(packet));
            assertThat(turns).as("the loop stops").isLessThan(AUTO_CONTINUE);
        }

        assertThat(turns).as("1,000, 2,000, then 3,000 tokens: past 2,500 the third result starts nothing")
                .isEqualTo(3);
        List<CouncilMessage> escalations = council.readValuesToList();
        assertThat(escalations).hasSize(1);
        assertThat(escalations.get(0).getType()).isEqualTo(CouncilMessageType.ESCALATION);
        assertThat(escalations.get(0).getSessionId()).isEqualTo("s1");
        assertThat(escalations.get(0).getContent()).contains("token budget of 2,500 (--session-token-budget)",
                "3,000 tokens (2,700 in, 300 out), 3 model calls, 6.0s of model time");
        assertThat(events.readValuesToList()).filteredOn(event -> event.getType()
                .equals(SessionAssembly.SESSION_BUDGET)).singleElement()
                .satisfies(event -> assertThat(event.getAttributes()).containsEntry("prompt_tokens", "2700")
                        .containsEntry("completion_tokens", "300").containsEntry("model_calls", "3"));
        SessionUsage last = lastUsage();
        assertThat(last.getOverBudget()).contains("token budget of 2,500");
        assertThat(last.getTokenBudget()).isEqualTo(2_500L);

        // The agent asks again: answered, and its tool results still do not start a turn, nor a second escalation.
        requests.pipeInput("s1", Records.request("s1", "And now the logs.").setRequestId("s1-r2")
                .setActiveSkill(null).build());
        CognitionPacket asked = packets.readValue();
        outputs.pipeInput("s1", answer(asked, 900, 100, 2_000));
        results.pipeInput("s1", result(asked));
        assertThat(packets.isEmpty()).as("no turn of its own").isTrue();
        assertThat(nextTurns.isEmpty()).as("no request of its own").isTrue();
        assertThat(council.isEmpty()).as("escalated once").isTrue();
        assertThat(lastUsage().getModelCalls()).isEqualTo(4);
    }

    @Test
    void theCallAndTimeBudgetsStopTheLoopToo() {
        start(new SessionBudgets(0, 2, Duration.ZERO));
        requests.pipeInput("s1", Records.request("s1", "Inspect the workspace.").setActiveSkill(null).build());
        CognitionPacket first = packets.readValue();
        outputs.pipeInput("s1", answer(first, 10, 10, 10));
        results.pipeInput("s1", result(first));
        CognitionPacket second = packets.readValue();
        outputs.pipeInput("s1", answer(second, 10, 10, 10));
        results.pipeInput("s1", result(second));

        assertThat(packets.isEmpty()).isTrue();
        assertThat(council.readValue().getContent()).contains("call budget of 2 (--session-call-budget)");
        driver.close();

        start(new SessionBudgets(0, 0, Duration.ofSeconds(5)));
        requests.pipeInput("s2", Records.request("s2", "Inspect the workspace.").setActiveSkill(null).build());
        CognitionPacket slow = packets.readValue();
        outputs.pipeInput("s2", answer(slow, 10, 10, 6_000));
        results.pipeInput("s2", result(slow));

        assertThat(packets.isEmpty()).isTrue();
        assertThat(council.readValue().getContent()).contains("time budget of 5.0s (--session-time-budget): 6.0s");
    }

    @Test
    void anAnswerWithoutUsageIsCountedByTheAssembly() {
        start(SessionBudgets.NONE);
        requests.pipeInput("s1", Records.request("s1", "Plan the deploy.").build());
        CognitionPacket packet = packets.readValue();
        outputs.pipeInput("s1", Records.output("s1", "RESPONSE: four words are here").setPacketId(packet.getMeta()
                .getPacketId()).setOutputId(Lineage.outputId(packet.getMeta().getPacketId())).setLatencyMs(120)
                .build());

        SessionUsage counted = lastUsage();
        assertThat(counted.getPromptTokens()).as("the packet's own count").isEqualTo(packet.getTotalTokens());
        assertThat(counted.getCompletionTokens()).isEqualTo(tokenizers.forModel("gpt-4o")
                .count("RESPONSE: four words are here"));
        assertThat(counted.getEstimatedAnswers()).isEqualTo(1);
        assertThat(counted.getModelTimeMs()).isEqualTo(120);
        assertThat(counted.getTokenBudget()).as("no budget").isNull();
    }

    private SessionUsage lastUsage() {
        List<org.apache.kafka.streams.test.TestRecord<String, SessionUsage>> records = usage.readRecordsToList();
        assertThat(records).isNotEmpty().allSatisfy(record -> assertThat(record.key()).isEqualTo("s1"));
        return records.get(records.size() - 1).value();
    }

    private static LlmOutput answer(CognitionPacket packet, int in, int out, long latencyMs) {
        String packetId = packet.getMeta().getPacketId();
        return Records.output(packet.getSessionId(), "EXECUTE: mcp__workspace__clock {}").setPacketId(packetId)
                .setOutputId(Lineage.outputId(packetId)).setRequestId(packet.getRequestId())
                .setPromptTokens(in).setCompletionTokens(out).setLatencyMs(latencyMs).build();
    }

    private static ToolResult result(CognitionPacket packet) {
        String packetId = packet.getMeta().getPacketId();
        return ToolResult.newBuilder().setCallId(Lineage.blockId(Lineage.outputId(packetId), 0))
                .setSessionId(packet.getSessionId()).setTool("mcp__workspace__clock").setSuccess(true)
                .setStatus(ToolStatus.SUCCEEDED).setExecutor("mcp:workspace").setPacketId(packetId).setCallCount(1)
                .setText("10:00").setTimestamp(Records.T0).build();
    }
}
