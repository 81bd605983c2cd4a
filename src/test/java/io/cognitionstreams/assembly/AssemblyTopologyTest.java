package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
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

import io.cognitionstreams.assembly.compression.CompressionChain;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.assembly.compression.CompressionResult;
import io.cognitionstreams.assembly.history.ChatImport;
import io.cognitionstreams.council.CouncilEnvelope;
import io.cognitionstreams.council.CouncilIds;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.prompt.ToolCalling;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.HistoryEntry;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.NativeToolCall;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.ToolSpec;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.CouncilSeal;

class AssemblyTopologyTest {

    /** Turns a session may take on its own after its tool results, in these tests. */
    private static final int AUTO_CONTINUE = 2;
    /** Small enough to reach in a test: three memories a scope, a day each. */
    private static final MemoryRetention RETENTION = new MemoryRetention(3, Duration.ofDays(1));
    private static final Settings.MemorySettings SHELVES = Settings.MemorySettings.defaults();
    private static final EmbeddingModel MINILM = EmbeddingModel.miniLm(MiniLmEmbedder.shared());

    /**
     * Stands in for the compression chain (CompressionChainTest covers the real one): keeps the longest prefix
     * that fits, tagged, so a test sees exactly which path a field took.
     */
    static final FieldCompressor PREFIX_COMPRESSOR = (field, text, target, counter) -> {
        int tag = counter.count(CompressionChain.TAG);
        String kept = counter.prefix(text, target - tag);
        return kept.isEmpty()
                ? new CompressionResult.TokenBudgetError(field, counter.count(text), target, List.of())
                : new CompressionResult.Compressed(CompressionChain.TAG + kept, counter.count(text),
                        counter.count(CompressionChain.TAG + kept), "prefix");
    };

    @TempDir
    Path stateDir;

    /** With two tenants' topics, as `run --secure` has them: the shared topic must work as it did beside them. */
    private final Topics topics = Drivers.topics(List.of("tenant-a", "tenant-b"));
    private final Tokenizers tokenizers = new Tokenizers();
    private final TokenCounter o200k = tokenizers.forModel("gpt-4o");
    private TopologyTestDriver driver;
    private TestInputTopic<String, CognitionRequest> requests;
    private TestInputTopic<String, byte[]> rawRequests;
    private TestInputTopic<String, LlmOutput> outputs;
    private TestInputTopic<String, Skill> skills;
    private TestInputTopic<String, Identity> identities;
    private TestInputTopic<String, Persona> personas;
    private TestInputTopic<String, ToolDecision> decisions;
    private TestOutputTopic<String, CognitionPacket> packets;
    private TestOutputTopic<String, PipelineEvent> events;
    private TestOutputTopic<String, DeadLetter> deadLetters;
    private TestOutputTopic<String, MemoryEntry> memories;
    private long written;

    @BeforeEach
    void start() {
        driver = start(stateDir);
    }

    private TopologyTestDriver start(Path dir) {
        return start(dir, ToolCalling.TEXT);
    }

    private TopologyTestDriver start(Path dir, ToolCalling calling) {
        StreamsBuilder builder = new StreamsBuilder();
        AssemblyTopology.build(builder, topics, new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                ContextLayers.defaults(PREFIX_COMPRESSOR, calling), PREFIX_COMPRESSOR, calling), MINILM,
                AUTO_CONTINUE, SessionBudgets.NONE, RETENTION, SHELVES.shelves(), CouncilSeal.NONE);
        // The wall clock an hour after the records' time, as it would be live: retention judges ages by it.
        TopologyTestDriver started = Drivers.driver(builder.build(), dir, Records.T0.plus(Duration.ofHours(1)));
        requests = TopicDriver.input(started, topics.requests);
        rawRequests = TopicDriver.raw(started, topics.requests);
        outputs = TopicDriver.input(started, topics.llmOutputs);
        skills = TopicDriver.input(started, topics.skills);
        identities = TopicDriver.input(started, topics.identity);
        personas = TopicDriver.input(started, topics.personas);
        decisions = TopicDriver.input(started, topics.toolDecisions);
        packets = TopicDriver.output(started, topics.packets);
        events = TopicDriver.output(started, topics.events);
        deadLetters = TopicDriver.output(started, topics.deadLetters);
        memories = TopicDriver.output(started, topics.memory);
        return started;
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void aPacketIsCountedInTheTargetModelsEncodingWithEveryFieldWithinItsBudget() {
        requests.pipeInput("s1", Records.request("s1", "Plan the deploy of release 2.4.0.").build());

        CognitionPacket packet = packets.readValue();
        assertThat(packet.getEncoding()).isEqualTo("o200k_base");
        assertThat(packet.getMtu()).isEqualTo(PacketAssembler.DEFAULT_MTU);
        Map<String, Integer> tokens = packet.getFieldTokens();
        assertThat(tokens.get("identity")).isEqualTo(o200k.count(IdentityDefaults.TEXT))
                .isLessThanOrEqualTo(new FieldBudgets(PacketAssembler.DEFAULT_MTU).identity());
        assertThat(tokens.get("persona")).isLessThanOrEqualTo(FieldBudgets.PERSONA_MAX);
        assertThat(tokens.get("task_instruction")).isLessThanOrEqualTo(FieldBudgets.TASK_INSTRUCTION_MAX);
        assertThat(tokens.get("user_prompt")).isEqualTo(o200k.count("Plan the deploy of release 2.4.0."));
        int rendered = PromptRenderer.render(packet).stream()
                .mapToInt(m -> o200k.count(m.content()) + PromptRenderer.MESSAGE_OVERHEAD).sum();
        assertThat(packet.getTotalTokens()).isEqualTo(rendered).isLessThanOrEqualTo(packet.getMtu());
        PipelineEvent assembled = events.readValue();
        assertThat(assembled.getType()).isEqualTo(Events.CONTEXT_ASSEMBLED);
        assertThat(assembled.getAttributes()).containsKeys("layer.persona", "layer.identity", "layer.active_skill",
                "layer.tools", "layer.rag").containsEntry("total_tokens", String.valueOf(packet.getTotalTokens()));
        assertThat(assembled.getAttributes().get("layer.active_skill")).contains("status=EMPTY");
    }

    @Test
    void aHeaderFieldOverItsLimitIsCompressedAndReportedWithBothCounts() {
        // At an MTU of 1024 identity may use min(256, 6 % of 1024) = 61 tokens; the default identity has more.
        requests.pipeInput("s1", Records.request("s1", "hello").setMtu(1024).build());

        CognitionPacket packet = packets.readValue();
        assertThat(packet.getHeader().getIdentity()).startsWith(CompressionChain.TAG);
        assertThat(packet.getFieldTokens().get("identity")).isLessThanOrEqualTo(61);
        PipelineEvent overrun = events.readValuesToList().stream()
                .filter(e -> e.getType().equals(Events.TOKEN_BUDGET_OVERRUN)).findFirst().orElseThrow();
        assertThat(overrun.getAttributes()).containsEntry("field", "identity").containsEntry("budget", "61")
                .containsEntry("original_tokens", String.valueOf(o200k.count(IdentityDefaults.TEXT)));
    }

    @Test
    void theMetaHeaderNeverReachesTheModel() {
        requests.pipeInput("s1", Records.request("s1", "hello").setParentId("parent-77").setRetryCount(1)
                .setRetryReason("VERIFY failed").build());

        CognitionPacket packet = packets.readValue();
        String prompt = PromptRenderer.render(packet).toString();
        assertThat(packet.getMeta().getRetryCount()).isEqualTo(1);
        assertThat(prompt).doesNotContain(packet.getMeta().getPacketId(), "parent-77", "retry_count",
                "packet_id", packet.getMeta().getTimestamp().toString());
    }

    @Test
    void theSessionsHistoryFeedsTheNextPacketCountedOnce() {
        requests.pipeInput("s1", Records.request("s1", "first question").build());
        packets.readValue();
        outputs.pipeInput("s1", Records.output("s1", "RESPONSE: first answer").build());
        requests.pipeInput("s1", Records.request("s1", "second question").setRequestId("s1-r2").build());

        CognitionPacket second = packets.readValue();
        assertThat(second.getPayload().getHistory()).extracting(m -> m.getRole() + ": " + m.getContent())
                .containsExactly("USER: first question", "ASSISTANT: RESPONSE: first answer");
        assertThat(second.getPayload().getHistory()).allSatisfy(message ->
                assertThat(message.getTokenCount()).isEqualTo(o200k.count(message.getContent())));
        KeyValueStore<String, SessionState> sessions = driver.getKeyValueStore(AssemblyTopology.SESSION_STORE);
        assertThat(sessions.get("s1").getNextSequence()).isEqualTo(3L);
        assertThat(sessions.get("s1").getTurns()).isEqualTo(2);
    }

    @Test
    void toolResultsJoinTheHistoryPairedWithTheirCallsAndTheLastOfATurnStartsTheNextTurn() {
        TestInputTopic<String, ToolResult> results = TopicDriver.input(driver, topics.toolResults);
        TestOutputTopic<String, CognitionRequest> nextTurns = TopicDriver.output(driver, topics.requests);
        requests.pipeInput("s1", Records.request("s1", "Inspect the workspace.").setActiveSkill(null).build());
        String packetId = packets.readValue().getMeta().getPacketId();
        outputs.pipeInput("s1", Records.output("s1", "EXECUTE: mcp__workspace__list_files {}\n"
                + "EXECUTE: mcp__workspace__read_file {}").setPacketId(packetId).build());

        results.pipeInput("s1", result("s1", "c1", packetId, 2).setTool("mcp__workspace__list_files")
                .setText("README.md\npom.xml").build());
        assertThat(nextTurns.isEmpty()).as("one of two results: the turn is not over").isTrue();
        results.pipeInput("s1", result("s1", "c2", packetId, 2).setTool("mcp__workspace__read_file")
                .setSuccess(false).setStatus(ToolStatus.UNKNOWN_OUTCOME).setError("the executor stopped").build());

        CognitionRequest next = nextTurns.readValue();
        assertThat(next.getRequestId()).isEqualTo(packetId + "-next");
        assertThat(next.getParentId()).isEqualTo(packetId);
        assertThat(next.getAutoContinueStep()).isEqualTo(1);
        assertThat(next.getTaskInstructionKey()).isEqualTo(TaskInstructions.AFTER_TOOL_RESULTS);
        // The driver feeds the continuation back in, as the broker would.
        CognitionPacket continued = packets.readValue();
        assertThat(continued.getPayload().getUserPrompt()).isEqualTo(SessionAssembly.CONTINUE_PROMPT);
        // Our models call tools with EXECUTE lines, not native tool calls, so a result answers no tool call of the
        // chat API's: it reaches the model as a user message that keeps its call id and says whose output it is.
        assertThat(continued.getPayload().getHistory())
                .filteredOn(message -> message.getToolCallId() != null)
                .extracting(ChatMessage::getRole, ChatMessage::getToolCallId, ChatMessage::getName,
                        ChatMessage::getContent)
                .containsExactly(tuple(ChatRole.USER, "c1", "mcp__workspace__list_files",
                                "[output of tool mcp__workspace__list_files, call c1]\nREADME.md\npom.xml"),
                        tuple(ChatRole.USER, "c2", "mcp__workspace__read_file",
                                "[output of tool mcp__workspace__read_file, call c2]\nUNKNOWN_OUTCOME: the executor "
                                        + "stopped"));
        KeyValueStore<String, HistoryEntry> history = driver.getKeyValueStore(AssemblyTopology.HISTORY_STORE);
        try (var entries = history.all()) {
            assertThat(entries).toIterable().extracting(entry -> entry.value.getMessage().getRole())
                    .as("stored as TOOL messages; only the packet renders them").contains(ChatRole.TOOL);
        }
    }

    @Test
    void aModelThatCallsToolsNativelyGetsTheirSpecsCountedAndItsCallsAndResultsBackAsItMadeThem(
            @TempDir Path nativeDir) {
        driver.close();
        driver = start(nativeDir, ToolCalling.NATIVE);
        TestInputTopic<String, ToolDescriptor> tools = TopicDriver.input(driver, topics.tools);
        TestInputTopic<String, ToolResult> results = TopicDriver.input(driver, topics.toolResults);
        String readSchema = "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}";
        tools.pipeInput("mcp__workspace__read_file", descriptor("mcp__workspace__read_file", readSchema));
        tools.pipeInput("mcp__workspace__list_files", descriptor("mcp__workspace__list_files", null));
        tools.pipeInput("mcp__git__push", descriptor("mcp__git__push", null));
        skills.pipeInput("workspace", skill("workspace", "1.0.0", "Read before you write."));
        requests.pipeInput("s1", Records.request("s1", "Read a and b.").setActiveSkill("workspace").build());

        CognitionPacket first = packets.readValue();
        assertThat(first.getTools()).as("only what the skill may call, by name, with its schema")
                .extracting(ToolSpec::getName, ToolSpec::getParameters).containsExactly(
                        tuple("mcp__workspace__list_files", "{\"type\":\"object\"}"),
                        tuple("mcp__workspace__read_file", "{\"type\":\"object\",\"properties\":{\"path\":"
                                + "{\"type\":\"string\"}}}"));
        int specTokens = first.getFieldTokens().get("tool_specs");
        assertThat(specTokens).isPositive();
        int rendered = PromptRenderer.render(first).stream()
                .mapToInt(message -> o200k.count(message.content()) + PromptRenderer.MESSAGE_OVERHEAD).sum();
        assertThat(first.getTotalTokens()).as("the specs are counted against the MTU")
                .isEqualTo(rendered + specTokens);
        assertThat(first.getHeader().getContext()).contains("the API's tool calls")
                .doesNotContain("EXECUTE:", "- mcp__workspace__read_file");

        String outputId = first.getMeta().getPacketId() + "-out";
        outputs.pipeInput("s1", Records.output("s1", "EXECUTE: mcp__workspace__read_file {\"path\":\"a\"}\n"
                        + "EXECUTE: mcp__workspace__read_file {\"path\":\"b\"}").setOutputId(outputId)
                .setPacketId(first.getMeta().getPacketId()).setContent("")
                .setToolCalls(List.of(nativeCall(outputId + "#0", "call_0", "a"),
                        nativeCall(outputId + "#1", "call_0", "b"))).build());
        results.pipeInput("s1", result("s1", outputId + "#0", first.getMeta().getPacketId(), 2)
                .setTool("mcp__workspace__read_file").setText("A").build());
        results.pipeInput("s1", result("s1", outputId + "#1", first.getMeta().getPacketId(), 2)
                .setTool("mcp__workspace__read_file").setText("B").build());

        CognitionPacket next = packets.readValue();
        List<ChatMessage> history = next.getPayload().getHistory();
        assertThat(history).extracting(ChatMessage::getRole).containsExactly(ChatRole.USER, ChatRole.ASSISTANT,
                ChatRole.TOOL, ChatRole.TOOL);
        assertThat(history.get(1).getContent()).as("the model's own text, not the EXECUTE blocks").isEmpty();
        assertThat(history.get(1).getToolCalls()).extracting(ChatToolCall::getId, ChatToolCall::getModelId)
                .containsExactly(tuple(outputId + "#0", "call_0"), tuple(outputId + "#1", "call_0"));
        assertThat(history.get(1).getTokenCount()).isPositive();
        List<ModelClient.PromptMessage> prompt = PromptRenderer.render(next);
        assertThat(prompt.get(2).toolCalls()).extracting(ChatToolCall::getId)
                .as("the model's own id, and a repeated one made unique").containsExactly("call_0", outputId + "_1");
        assertThat(prompt.subList(3, 5)).extracting(ModelClient.PromptMessage::role,
                ModelClient.PromptMessage::toolCallId, ModelClient.PromptMessage::content).containsExactly(
                tuple("tool", "call_0", "A"), tuple("tool", outputId + "_1", "B"));
    }

    @Test
    void theToolsIndexFollowsEveryChangeOfTheSkillsAndToolsBetweenTwoRequests() {
        TestInputTopic<String, ToolDescriptor> tools = TopicDriver.input(driver, topics.tools);
        tools.pipeInput("mcp__workspace__read_file", descriptor("mcp__workspace__read_file", null));
        skills.pipeInput("workspace", skill("workspace", "1.0.0", "Read before you write."));
        requests.pipeInput("s1", Records.request("s1", "Read a.").setActiveSkill("workspace").build());
        assertThat(packets.readValue().getHeader().getContext())
                .contains("- mcp__workspace__read_file(): does mcp__workspace__read_file", "- workspace: ")
                .doesNotContain("list_files", "- git: ");

        // The index is rendered once per change of the tools (RenderedTools): each change must still show.
        tools.pipeInput("mcp__workspace__read_file", null);
        tools.pipeInput("mcp__workspace__list_files", descriptor("mcp__workspace__list_files", null));
        skills.pipeInput("git", skill("git", "1.0.0", "Commit small."));
        requests.pipeInput("s2", Records.request("s2", "List them.").setActiveSkill("workspace").build());
        assertThat(packets.readValue().getHeader().getContext())
                .contains("- mcp__workspace__list_files(): does mcp__workspace__list_files", "- git: ",
                        "- workspace: ")
                .doesNotContain("read_file");
    }

    private static ToolDescriptor descriptor(String name, String schema) {
        return ToolDescriptor.newBuilder().setName(name).setServer(name.split("__")[1]).setTool(name.split("__")[2])
                .setDescription("does " + name).setInputSchema(schema).setExecutor("x").setTimestamp(Records.T0)
                .build();
    }

    private static NativeToolCall nativeCall(String callId, String id, String path) {
        return NativeToolCall.newBuilder().setCallId(callId).setId(id).setName("mcp__workspace__read_file")
                .setArguments("{\"path\":\"" + path + "\"}").build();
    }

    @Test
    void aSessionThatKeepsCallingToolsIsEscalatedAfterItsAutoContinueSteps() {
        TestInputTopic<String, ToolResult> results = TopicDriver.input(driver, topics.toolResults);
        TestOutputTopic<String, CouncilMessage> council = TopicDriver.output(driver, topics.councilMessages);
        requests.pipeInput("s1", Records.request("s1", "Inspect the workspace.").setActiveSkill(null).build());
        String packetId = packets.readValue().getMeta().getPacketId();
        for (int turn = 1; turn <= AUTO_CONTINUE; turn++) {
            answerAndReturn(packetId, "c" + turn, "more to do");
            packetId = packets.readValue().getMeta().getPacketId();
        }

        answerAndReturn(packetId, "c-last", "still more");

        assertThat(packets.isEmpty()).as("no turn past the limit").isTrue();
        var record = council.readKeyValue();
        CouncilMessage escalation = record.value;
        assertThat(escalation.getType()).isEqualTo(CouncilMessageType.ESCALATION);
        assertThat(escalation.getSessionId()).isEqualTo("s1");
        assertThat(record.key).isEqualTo(CouncilIds.DEFAULT);
        assertThat(CouncilEnvelope.requireValid(record.key, escalation, CouncilSettings.defaults(),
                escalation.getTimestamp())).as("the council takes it").isNotNull();
        assertThat(events.readValuesToList()).extracting(PipelineEvent::getType)
                .contains(SessionAssembly.AUTO_CONTINUE_LIMIT);
    }

    @Test
    void aSessionsCouncilIsOnEveryPacketUntilARequestNamesAnother() {
        requests.pipeInput("s1", Records.request("s1", "first").setCouncilId("billing").build());
        requests.pipeInput("s1", Records.request("s1", "second").setRequestId("r2").build());
        requests.pipeInput("s1", Records.request("s1", "third").setRequestId("r3").setCouncilId("platform").build());
        requests.pipeInput("s1", Records.request("s1", "fourth").setRequestId("r4").build());
        requests.pipeInput("s2", Records.request("s2", "never named one").build());

        assertThat(packets.readValuesToList()).extracting(packet -> packet.getSessionId(),
                packet -> packet.getMeta().getCouncilId()).containsExactly(tuple("s1", "billing"),
                tuple("s1", "billing"), tuple("s1", "platform"), tuple("s1", "platform"), tuple("s2", null));
    }

    @Test
    void theAutoContinueEscalationGoesToTheSessionsCouncil() {
        TestInputTopic<String, ToolResult> results = TopicDriver.input(driver, topics.toolResults);
        TestOutputTopic<String, CouncilMessage> council = TopicDriver.output(driver, topics.councilMessages);
        requests.pipeInput("s1", Records.request("s1", "Inspect the workspace.").setCouncilId("billing").build());
        String packetId = packets.readValue().getMeta().getPacketId();
        for (int turn = 1; turn <= AUTO_CONTINUE; turn++) {
            answerAndReturn(packetId, "c" + turn, "more to do");
            CognitionPacket next = packets.readValue();
            assertThat(next.getMeta().getCouncilId()).as("a turn the pipeline asks for").isEqualTo("billing");
            packetId = next.getMeta().getPacketId();
        }

        answerAndReturn(packetId, "c-last", "still more");

        var escalation = council.readKeyValue();
        assertThat(escalation.key).isEqualTo("billing");
        assertThat(escalation.value.getCouncilId()).isEqualTo("billing");
    }

    private static ToolResult.Builder result(String session, String callId, String packetId, int callCount) {
        return ToolResult.newBuilder().setCallId(callId).setSessionId(session).setTool("mcp__workspace__clock")
                .setSuccess(true).setStatus(ToolStatus.SUCCEEDED).setExecutor("mcp:workspace")
                .setPacketId(packetId).setCallCount(callCount).setTimestamp(Records.T0);
    }

    /** Session s1's model answers the packet with one call, and the call's result comes back. */
    private void answerAndReturn(String packetId, String callId, String text) {
        outputs.pipeInput("s1", Records.output("s1", "EXECUTE: mcp__workspace__clock {}").setPacketId(packetId)
                .setOutputId(packetId + "-out").build());
        TopicDriver.input(driver, topics.toolResults).pipeInput("s1", result("s1", callId, packetId, 1)
                .setText(text).build());
    }

    @Test
    void resultsThatComeBeforeTheirAnswerWaitForItAndFollowItsCalls(@TempDir Path nativeDir) {
        driver.close();
        driver = start(nativeDir, ToolCalling.NATIVE);
        TestInputTopic<String, ToolResult> results = TopicDriver.input(driver, topics.toolResults);
        TestOutputTopic<String, CognitionRequest> nextTurns = TopicDriver.output(driver, topics.requests);
        requests.pipeInput("s1", Records.request("s1", "Read a and b.").setActiveSkill(null).build());
        String packetId = packets.readValue().getMeta().getPacketId();
        String outputId = packetId + "-out";

        // Both results are read before the answer that made their calls, as a loaded task may read them.
        results.pipeInput("s1", result("s1", outputId + "#0", packetId, 2).setText("A").build());
        results.pipeInput("s1", result("s1", outputId + "#1", packetId, 2).setText("B").build());
        assertThat(nextTurns.isEmpty()).as("no next turn before the answer is in the history").isTrue();
        outputs.pipeInput("s1", Records.output("s1", "").setOutputId(outputId).setPacketId(packetId)
                .setContent("").setToolCalls(List.of(nativeCall(outputId + "#0", "call_a", "a"),
                        nativeCall(outputId + "#1", "call_b", "b"))).build());

        assertThat(nextTurns.readValue().getRequestId()).isEqualTo(packetId + "-next");
        assertThat(nextTurns.isEmpty()).as("one next turn").isTrue();
        List<ModelClient.PromptMessage> prompt = PromptRenderer.render(packets.readValue());
        assertThat(prompt.subList(prompt.size() - 4, prompt.size() - 1)).extracting(
                ModelClient.PromptMessage::role, ModelClient.PromptMessage::toolCallId,
                ModelClient.PromptMessage::content).as("each result after the answer, answering its call")
                .containsExactly(tuple("assistant", null, ""), tuple("tool", "call_a", "A"),
                        tuple("tool", "call_b", "B"));
        assertThat(driver.<String, SessionState>getKeyValueStore(AssemblyTopology.SESSION_STORE).get("s1")
                .getHeldResults()).isEmpty();
    }

    @Test
    void resultsWhoseAnswerNeverComesJoinTheHistoryAtTheSessionsNextTurn() {
        TestInputTopic<String, ToolResult> results = TopicDriver.input(driver, topics.toolResults);
        requests.pipeInput("s1", Records.request("s1", "Inspect the workspace.").setActiveSkill(null).build());
        String packetId = packets.readValue().getMeta().getPacketId();
        results.pipeInput("s1", result("s1", "c1", packetId, 1).setText("README.md").build());
        // Produced onto tool.calls by hand (call_count 0): no answer to wait for.
        results.pipeInput("s1", result("s1", "c2", packetId, 0).setText("pom.xml").build());

        requests.pipeInput("s1", Records.request("s1", "And now?").setRequestId("r2").setActiveSkill(null).build());

        assertThat(packets.readValue().getPayload().getHistory()).extracting(ChatMessage::getToolCallId)
                .as("the held result in the order it came, after the one that did not wait")
                .containsExactly(null, "c2", "c1");
    }

    @Test
    void aRequestCanTravelBackToTheHistoryAsItWasAtACheckpoint() {
        requests.pipeInput("s1", Records.request("s1", "first question").build());
        outputs.pipeInput("s1", Records.output("s1", "RESPONSE: first answer").build());
        requests.pipeInput("s1", Records.request("s1", "second question").setRequestId("r2").build());
        outputs.pipeInput("s1", Records.output("s1", "VERIFY: fail").build());
        CognitionPacket checkpointed = packets.readValuesToList().get(1);
        assertThat(checkpointed.getHistoryUntil()).isEqualTo(2L);

        requests.pipeInput("s1", Records.request("s1", "second question").setRequestId("r2").setRetryCount(1)
                .setRetryReason("VERIFY failed").setHistoryUntil(checkpointed.getHistoryUntil()).build());

        CognitionPacket retry = packets.readValue();
        assertThat(retry.getHistoryUntil()).isEqualTo(2L);
        assertThat(retry.getPayload().getHistory()).extracting(m -> m.getContent())
                .containsExactly("first question", "RESPONSE: first answer",
                        "[AUTO-FIX RECOVERY]\nPrevious attempt failed: VERIFY failed\n"
                                + "We have rolled back to a previous checkpoint.\n"
                                + "Please analyze the error and try a different approach.");
    }

    @Test
    void aLongHistoryIsCutToItsBudgetNewestFirstAndNeverOpensWithAToolResult() {
        for (int turn = 0; turn < 300; turn++) {
            requests.pipeInput("s1", Records.request("s1", "question " + turn + " " + "detail ".repeat(20))
                    .setRequestId("r" + turn).build());
            outputs.pipeInput("s1", Records.output("s1", "RESPONSE: answer " + turn).build());
        }
        packets.readValuesToList();
        requests.pipeInput("s1", Records.request("s1", "the last question").setRequestId("last").build());

        CognitionPacket packet = packets.readValue();
        var history = packet.getPayload().getHistory();
        assertThat(history).isNotEmpty();
        assertThat(history.get(0).getRole()).isNotEqualTo(ChatRole.TOOL);
        assertThat(history.get(history.size() - 1).getContent()).isEqualTo("RESPONSE: answer 299");
        assertThat(packet.getTotalTokens()).isLessThanOrEqualTo(packet.getMtu());
        int historyTokens = history.stream().mapToInt(m -> m.getTokenCount() + PromptRenderer.MESSAGE_OVERHEAD).sum();
        assertThat(packet.getFieldTokens().get("history")).isEqualTo(historyTokens);
        int afterHeaderAndPrompt = packet.getMtu() - packet.getFieldTokens().get("identity")
                - packet.getFieldTokens().get("persona") - packet.getFieldTokens().get("task_instruction")
                - packet.getFieldTokens().get("user_prompt") - PromptRenderer.MESSAGE_OVERHEAD;
        assertThat(historyTokens).isLessThanOrEqualTo(FieldBudgets.history(afterHeaderAndPrompt));
    }

    @Test
    void theSameInputsGiveTheSamePacketBytesOnAnotherInstance(@TempDir Path otherDir) {
        List<byte[]> first = scriptedPackets();
        driver.close();
        driver = start(otherDir);

        List<byte[]> second = scriptedPackets();
        assertThat(second).hasSameSizeAs(first);
        for (int i = 0; i < first.size(); i++) {
            assertThat(second.get(i)).isEqualTo(first.get(i));
        }
    }

    private List<byte[]> scriptedPackets() {
        skills.pipeInput("git", skill("git", "1.0.0", "Always run git status first."));
        requests.pipeInput("s1", Records.request("s1", "commit the change").setActiveSkill("git").build());
        outputs.pipeInput("s1", Records.output("s1", "PLAN: status, then commit").build());
        requests.pipeInput("s1", Records.request("s1", "and push").setRequestId("s1-r2").build());
        return packets.readValuesToList().stream()
                .map(packet -> topics.packets.valueSerde().serializer().serialize("t", packet)).toList();
    }

    @Test
    void theActiveSkillsProtocolIsRenderedAndAnEditedSkillShowsInTheNextPacket() {
        skills.pipeInput("git", skill("git", "1.0.0", "You are {{ skill.name }} v{{ skill.version }}. Never force-push."));
        requests.pipeInput("s1", Records.request("s1", "push it").setActiveSkill("git").build());
        skills.pipeInput("git", skill("git", "1.1.0", "Never force-push. Sign every commit."));
        requests.pipeInput("s1", Records.request("s1", "push it again").setRequestId("r2").setActiveSkill("git")
                .build());

        List<CognitionPacket> both = packets.readValuesToList();
        assertThat(both.get(0).getHeader().getContext())
                .contains("<active_protocol>", "You are git v1.0.0. Never force-push.", "- git: git operations");
        assertThat(both.get(1).getHeader().getContext()).contains("v1.1.0", "Sign every commit.")
                .doesNotContain("You are git");
    }

    @Test
    void rememberedBlocksAreEmbeddedOnceAndTheMostSimilarReachLaterPacketsOfTheirScope() {
        write(memoryBlock("b1", "VERIFY: the database backup restored in four minutes.").setMemoryScope("ops"));
        write(memoryBlock("b2", "THOUGHT_SEED: try a canary deploy for the payment service.").setMemoryScope("ops"));

        requests.pipeInput("s2", Records.request("s2", "How long does restoring the database backup take?")
                .setMemoryScope("ops").build());

        String context = packets.readValue().getHeader().getContext();
        assertThat(context).contains("[RAG Knowledge]", "restored in four minutes");
        assertThat(context.indexOf("restored in four minutes")).isLessThan(context.indexOf("canary") < 0
                ? Integer.MAX_VALUE : context.indexOf("canary"));
        KeyValueStore<String, MemoryEntry> store = driver.getKeyValueStore(AssemblyTopology.MEMORY_STORE);
        assertThat(store.get(MemoryStore.key("ops", "b1")).getText()).contains("four minutes");
    }

    /**
     * Two tenants with memories that answer each other's questions, and a session that names no scope: each sees
     * its own scope's memories and nothing of the others', however similar.
     */
    @Test
    void twoScopesNeverSeeEachOthersMemoriesAndASessionWithoutOneSeesOnlyItsOwn() {
        List<MemoryEntry> written = List.of(
                write(memoryBlock("a-b1", "THOUGHT_SEED: tenant A restores its database backup from the Frankfurt "
                        + "bucket.").setSessionId("a1").setMemoryScope("tenant-a")),
                write(memoryBlock("b-b1", "THOUGHT_SEED: tenant B restores its database backup from the Oregon "
                        + "bucket.").setSessionId("b1").setMemoryScope("tenant-b")),
                write(memoryBlock("l-b1", "VERIFY: the loner's database backup restored from tape.")
                        .setSessionId("loner")));
        assertThat(written).extracting(MemoryEntry::getScope)
                .containsExactly("tenant-a", "tenant-b", "session/loner");
        String question = "Where do we restore the database backup from?";

        requests.pipeInput("a2", Records.request("a2", question).setMemoryScope("tenant-a").build());
        requests.pipeInput("b2", Records.request("b2", question).setMemoryScope("tenant-b").build());
        requests.pipeInput("loner", Records.request("loner", question).build());
        requests.pipeInput("other", Records.request("other", question).build());

        Map<String, String> contexts = packets.readValuesToList().stream().collect(
                java.util.stream.Collectors.toMap(CognitionPacket::getSessionId, p -> p.getHeader().getContext()));
        assertThat(contexts.get("a2")).contains("Frankfurt").doesNotContain("Oregon", "tape");
        assertThat(contexts.get("b2")).contains("Oregon").doesNotContain("Frankfurt", "tape");
        assertThat(contexts.get("loner")).contains("tape").doesNotContain("Frankfurt", "Oregon");
        assertThat(contexts.get("other")).doesNotContain("[RAG Knowledge]", "Frankfurt", "Oregon", "tape");
    }

    @Test
    void aReRunTurnRecallsOnlyWhatWasWrittenByItsTime() {
        write(memoryBlock("b1", "VERIFY: the database backup restored in four minutes.").setMemoryScope("ops"),
                Records.T0.plusSeconds(10));
        write(memoryBlock("b2", "VERIFY: the nightly database backup took an hour.").setMemoryScope("ops"),
                Records.T0.plusSeconds(100));
        String question = "How long does restoring the database backup take?";

        requests.pipeInput("s2", Records.request("s2", question).setMemoryScope("ops").build());
        requests.pipeInput("s2", Records.request("s2", question).setRequestId("r2")
                .setMemoryAsOf(Records.T0.plusSeconds(50)).build());
        requests.pipeInput("s2", Records.request("s2", question).setRequestId("r3")
                .setMemoryAsOf(Records.T0.plusSeconds(10)).build());
        requests.pipeInput("s2", Records.request("s2", question).setRequestId("r4")
                .setMemoryAsOf(Records.T0).build());

        List<String> contexts = packets.readValuesToList().stream().map(p -> p.getHeader().getContext()).toList();
        assertThat(contexts.get(0)).as("a live turn").contains("four minutes", "an hour");
        assertThat(contexts.get(1)).contains("four minutes").doesNotContain("an hour");
        assertThat(contexts.get(2)).as("written at the very time").contains("four minutes");
        assertThat(contexts.get(3)).doesNotContain("[RAG Knowledge]");
    }

    @Test
    void aSessionKeepsTheScopeItNamedAndItsPacketsCarryIt() {
        requests.pipeInput("s1", Records.request("s1", "first").setMemoryScope("ops").build());
        requests.pipeInput("s1", Records.request("s1", "second").setRequestId("s1-r2").build());
        requests.pipeInput("s1", Records.request("s1", "third").setRequestId("s1-r3").setMemoryScope("dev").build());
        requests.pipeInput("s2", Records.request("s2", "alone").build());

        assertThat(packets.readValuesToList()).extracting(p -> p.getMeta().getMemoryScope())
                .containsExactly("ops", "ops", "dev", "session/s2");
        KeyValueStore<String, SessionState> sessions = driver.getKeyValueStore(AssemblyTopology.SESSION_STORE);
        assertThat(sessions.get("s1").getMemoryScope()).isEqualTo("dev");
    }

    @Test
    void aRequestNamingAScopeNoOneCouldIsADeadLetter() {
        requests.pipeInput("s1", Records.request("s1", "go").setMemoryScope(" ").build());

        assertThat(deadLetters.readValuesToList()).extracting(DeadLetter::getErrorKind, DeadLetter::getReason)
                .containsExactly(tuple(ErrorKind.VALIDATION, "memory scope is empty (leave memory_scope out for the "
                        + "session's own, session/s1)"));
        assertThat(packets.isEmpty()).isTrue();
    }

    @Test
    void aRepeatedMemoryIsRecalledOnceAndATombstoneOrAForeignModelKeepsAnEntryOut() {
        String restored = "VERIFY: the database backup restored in four minutes.";
        MemoryEntry first = write(memoryBlock("b1", restored));
        write(memoryBlock("b2", restored));
        write(memoryBlock("b3", "VERIFY: the nightly database backup took an hour."));
        TestInputTopic<String, MemoryEntry> memoryTopic = TopicDriver.input(driver, topics.memory);
        // Another model's vectors are not comparable with our prompts': refused, whatever they contain.
        memoryTopic.pipeInput("b4", MemoryEntry.newBuilder(first).setBlockId("b4")
                .setText("VERIFY: restoring the database backup took four days.").setEmbeddingModel("other").build());

        requests.pipeInput("s2", Records.request("s2", "How long does restoring the database backup take?").build());
        String context = packets.readValue().getHeader().getContext();
        assertThat(context).contains("restored in four minutes", "took an hour").doesNotContain("four days");
        assertThat(context.split("restored in four minutes", -1)).hasSize(2);

        memoryTopic.pipeInput("b3", null);
        requests.pipeInput("s2", Records.request("s2", "How long does restoring the database backup take?")
                .setRequestId("r2").build());
        assertThat(packets.readValue().getHeader().getContext()).contains("restored in four minutes")
                .doesNotContain("took an hour");
    }

    @Test
    void aScopePastItsCountForgetsItsOldestWithATombstoneAsTheNextIsKept() {
        for (int i = 1; i <= 3; i++) {
            write(memoryBlock("b" + i, "VERIFY: backup drill " + i + " restored the database.").setMemoryScope("ops"),
                    Records.T0.plusSeconds(i));
        }
        write(memoryBlock("other", "VERIFY: another scope's backup drill.").setMemoryScope("dev"), Records.T0);
        assertThat(memories.isEmpty()).isTrue();

        write(memoryBlock("b4", "VERIFY: backup drill 4 restored the database.").setMemoryScope("ops"),
                Records.T0.plusSeconds(4));

        List<org.apache.kafka.streams.test.TestRecord<String, MemoryEntry>> written = memories.readRecordsToList();
        assertThat(written).extracting(org.apache.kafka.streams.test.TestRecord::key).containsExactly("b1");
        assertThat(written.get(0).value()).as("a tombstone").isNull();
        assertThat(new String(written.get(0).headers().lastHeader(MemoryWrite.SCOPE_HEADER).value(),
                java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("ops");
        requests.pipeInput("s2", Records.request("s2", "Did the backup drill restore the database?")
                .setMemoryScope("ops").build());
        assertThat(packets.readValue().getHeader().getContext()).contains("drill 4", "drill 3", "drill 2")
                .doesNotContain("drill 1");
    }

    @Test
    void everyMinuteTheSweepForgetsWhatAgedPastTheBoundInEveryScope() {
        write(memoryBlock("old", "VERIFY: an old lesson.").setMemoryScope("ops"), Records.T0);
        write(memoryBlock("new", "VERIFY: a new lesson.").setMemoryScope("ops"), Records.T0.plus(Duration.ofHours(12)));
        write(memoryBlock("gone", "VERIFY: another old lesson."), Records.T0);

        driver.advanceWallClockTime(Duration.ofHours(23));
        assertThat(memories.isEmpty()).as("nothing is a day old yet").isTrue();
        driver.advanceWallClockTime(Duration.ofMinutes(1));

        assertThat(memories.readRecordsToList()).extracting(org.apache.kafka.streams.test.TestRecord::key,
                org.apache.kafka.streams.test.TestRecord::value).containsExactly(tuple("old", null),
                tuple("gone", null));
    }

    /**
     * A block as the memory writer makes it an entry, written at {@code at} (T0 by default), through cognition.memory
     * into the store of the task that holds its scope.
     */
    private MemoryEntry write(RoutedBlock.Builder block, Instant... at) {
        Instant writtenAt = at.length > 0 ? at[0] : Records.T0;
        MemoryEntry entry = EpisodicMemory.remember(block.build(), new EpisodicMemory.Source(
                Topics.channelTopic(Channel.MEMORY), 0, written++, writtenAt), MINILM);
        TopicDriver.input(driver, topics.memory).pipeInput(entry.getBlockId(), entry, writtenAt);
        return entry;
    }

    private static RoutedBlock.Builder memoryBlock(String id, String text) {
        return Records.memoryBlock(id, "s2", text);
    }

    @Test
    void aTombstoneOnToolDecisionsIsAValidationDeadLetterAndLaterRecordsFlowOn() {
        decisions.pipeInput("s1", null);
        requests.pipeInput("s1", Records.request("s1", "go on").build());

        DeadLetter letter = deadLetters.readValue();
        assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
        assertThat(letter.getSourceTopic()).isEqualTo(topics.toolDecisions.name());
        assertThat(letter.getReason()).contains("tombstone is not a decision");
        assertThat(packets.readValue().getPayload().getUserPrompt()).isEqualTo("go on");
    }

    @Test
    void anUnknownActiveSkillIsAValidationDeadLetter() {
        requests.pipeInput("s1", Records.request("s1", "do it").setActiveSkill("ghost").build());

        DeadLetter letter = deadLetters.readValue();
        assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
        assertThat(letter.getReason()).contains("unknown active_skill 'ghost'");
        assertThat(packets.isEmpty()).isTrue();
    }

    @Test
    void aPacketBiggerThanItsTopicTakesIsADeadLetterAndNothingIsRemembered(@TempDir Path other) {
        OutputLimits.TopicLimits small = new OutputLimits.TopicLimits(16 * 1024, Optional.empty(), Optional.empty());
        Topics narrow = new Topics(new SingleObjectAvroSerdeFactory(), new OutputLimits(
                OutputLimits.DEFAULT_MAX_REQUEST_BYTES, Map.of(Topics.COGNITION_PACKETS, small)));
        StreamsBuilder builder = new StreamsBuilder();
        AssemblyTopology.build(builder, narrow, new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                ContextLayers.defaults(PREFIX_COMPRESSOR), PREFIX_COMPRESSOR), MINILM, 0,
                SessionBudgets.NONE, RETENTION, SHELVES.shelves(), CouncilSeal.NONE);
        try (TopologyTestDriver narrowDriver = Drivers.driver(builder.build(), other)) {
            TopicDriver.input(narrowDriver, narrow.requests).pipeInput("s1", Records.request("s1",
                    "Summarize this log: " + "disk ok; ".repeat(3000)).setMtu(100_000).build());

            DeadLetter letter = TopicDriver.output(narrowDriver, narrow.deadLetters).readValue();
            assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
            assertThat(letter.getReason()).startsWith("the packet cannot be written: a record of ")
                    .contains("for cognition.packets is over the " + narrow.limits().maxValueBytes(
                            Topics.COGNITION_PACKETS) + " bytes the topic takes").endsWith("lower the request's mtu, "
                            + "or raise the topic's max.message.bytes");
            assertThat(TopicDriver.output(narrowDriver, narrow.packets).isEmpty()).isTrue();
            KeyValueStore<String, SessionState> sessions = narrowDriver.getKeyValueStore(
                    AssemblyTopology.SESSION_STORE);
            assertThat(sessions.get("s1")).as("the turn never happened").isNull();
        }
    }

    @Test
    void anOversizedSkillProtocolIsCompressedTaggedAndReportedNotCut() {
        skills.pipeInput("big", skill("big", "1.0.0", "Rule: be careful. ".repeat(400)));
        requests.pipeInput("s1", Records.request("s1", "go").setActiveSkill("big").build());

        CognitionPacket packet = packets.readValue();
        assertThat(packet.getHeader().getContext()).contains(CompressionChain.TAG);
        List<PipelineEvent> emitted = events.readValuesToList();
        PipelineEvent overrun = emitted.stream().filter(e -> e.getType().equals(Events.TOKEN_BUDGET_OVERRUN))
                .findFirst().orElseThrow();
        assertThat(overrun.getAttributes()).containsEntry("field", "active_skill").containsEntry("method", "prefix");
        assertThat(Integer.parseInt(overrun.getAttributes().get("original_tokens")))
                .isGreaterThan(Integer.parseInt(overrun.getAttributes().get("compressed_tokens")));
        assertThat(packet.getFieldTokens().get("active_skill"))
                .isLessThanOrEqualTo(Integer.parseInt(overrun.getAttributes().get("budget")));
    }

    @Test
    void aGovernedIdentityIsUsedAndAnUngovernedOneIsRefused() {
        identities.pipeInput(IdentityGovernance.KEY, identity("Be truthful. v2", 2, "azrael"));
        requests.pipeInput("s1", Records.request("s1", "who are you").build());
        identities.pipeInput(IdentityGovernance.KEY, identity("Obey the persona.", 3, "prime"));
        requests.pipeInput("s1", Records.request("s1", "who are you now").setRequestId("r2").build());

        assertThat(packets.readValuesToList()).extracting(p -> p.getHeader().getIdentity())
                .containsExactly("Be truthful. v2", "Be truthful. v2");
    }

    @Test
    void aLoadedPersonaShapesTheNextPacketWithItsToneAndConstraintsAndANewVersionTheOneAfter() {
        personas.pipeInput("mentor", Persona.newBuilder().setName("mentor").setRole("You are a patient mentor.")
                .setTone("warm").setConstraints(List.of("Never mock a question.")).build());
        requests.pipeInput("s1", Records.request("s1", "explain rebase").setPersona("mentor").build());
        personas.pipeInput("mentor", Persona.newBuilder().setName("mentor").setVersion("2.0.0")
                .setRole("You are a strict mentor.").build());
        requests.pipeInput("s1", Records.request("s1", "and merge?").setRequestId("r2").setPersona("mentor").build());

        assertThat(packets.readValuesToList()).extracting(p -> p.getHeader().getPersona()).containsExactly(
                "<role>You are a patient mentor.</role>\nTone: warm\nConstraints:\n- Never mock a question.",
                "<role>You are a strict mentor.</role>");
        assertThat(events.readValuesToList()).filteredOn(e -> e.getType().equals(Events.CONTEXT_ASSEMBLED))
                .extracting(e -> e.getAttributes().get("persona")).containsExactly("mentor 1.0.0", "mentor 2.0.0");
    }

    @Test
    void withNoPersonaLoadedARequestNamingNoneGetsTheBuiltInDefault() {
        requests.pipeInput("s1", Records.request("s1", "hello").build());

        assertThat(packets.readValue().getHeader().getPersona())
                .isEqualTo("<role>You are a careful, helpful assistant.</role>");
    }

    @Test
    void anUnknownPersonaIsOneDeadLetterNamingTheKnownOnesNeverTheDefault() {
        personas.pipeInput("mentor", Persona.newBuilder().setName("mentor").setRole("You are a mentor.").build());
        requests.pipeInput("s1", Records.request("s1", "hello").setPersona("mentr").build());

        assertThat(packets.isEmpty()).isTrue();
        assertThat(events.isEmpty()).isTrue();
        List<DeadLetter> letters = deadLetters.readValuesToList();
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
        assertThat(letters.get(0).getReason()).contains("unknown persona 'mentr'; known: [assistant, mentor]");
        KeyValueStore<String, SessionState> sessions = driver.getKeyValueStore(AssemblyTopology.SESSION_STORE);
        assertThat(sessions.get("s1")).as("a refused request leaves no trace in the session").isNull();
    }

    @Test
    void anImportedConversationWithParallelCallsIsAssembledWithEachResultBesideItsCall() throws Exception {
        TestInputTopic<String, HistoryImport> imports = TopicDriver.input(driver, topics.sessionImports);
        ChatImport conversation = new ChatImport();
        List<String> lines = java.nio.file.Files.readAllLines(Path.of(
                "src/test/resources/session-import/parallel-calls.jsonl"));
        for (int i = 0; i < lines.size(); i++) {
            conversation.add(i + 1, lines.get(i));
        }
        assertThat(conversation.finish()).isEmpty();
        List<ChatImport.Line> messages = conversation.messages();
        for (int i = 0; i < messages.size(); i++) {
            imports.pipeInput("s1", HistoryImport.newBuilder().setImportId("i1").setSessionId("s1").setIndex(i)
                    .setCount(messages.size()).setMessage(messages.get(i).message()).setTimestamp(Records.T0).build());
        }

        requests.pipeInput("s1", Records.request("s1", "Tag the release then.").build());

        List<ChatMessage> history = packets.readValue().getPayload().getHistory();
        assertThat(history).extracting(ChatMessage::getRole, ChatMessage::getToolCallId).containsExactly(
                tuple(ChatRole.SYSTEM, null), tuple(ChatRole.USER, null), tuple(ChatRole.ASSISTANT, null),
                tuple(ChatRole.TOOL, "call_tag"), tuple(ChatRole.TOOL, "call_build"), tuple(ChatRole.ASSISTANT, null));
        assertThat(history.get(2).getToolCalls()).extracting(ChatToolCall::getId)
                .containsExactly("call_build", "call_tag");
        assertThat(history.get(4).getContent()).isEqualTo("main: green (build 812)");
        assertThat(history).allSatisfy(message -> assertThat(message.getTokenCount())
                .isEqualTo(PromptRenderer.tokens(message, o200k)));
        KeyValueStore<String, SessionState> sessions = driver.getKeyValueStore(AssemblyTopology.SESSION_STORE);
        assertThat(sessions.get("s1").getNextSequence()).as("six imported, then the prompt").isEqualTo(7L);
    }

    @Test
    void aDeniedToolCallPutsTheSkillsProtocolInFrontOfTheModelOnTheNextPacketOnly() {
        decisions.pipeInput("s1", ToolDecision.newBuilder()
                .setCall(ToolCall.newBuilder().setCallId("c1").setSessionId("s1").setCaller("git").setSkill("git")
                        .setTool("terminal.run_command").setTimestamp(Records.T0).build())
                .setVerdict(Verdict.DENIED).setReason("not permitted").setRequiredPermission("terminal:run_command")
                .setProtocol("Use git.smart_commit, never the terminal.").setTimestamp(Records.T0).build());
        requests.pipeInput("s1", Records.request("s1", "retry").build());
        requests.pipeInput("s1", Records.request("s1", "next").setRequestId("r2").build());

        List<CognitionPacket> both = packets.readValuesToList();
        assertThat(both.get(0).getHeader().getReanchor()).isEqualTo("Use git.smart_commit, never the terminal.");
        assertThat(PromptRenderer.systemPrompt(both.get(0).getHeader()))
                .endsWith("<reanchor>\nUse git.smart_commit, never the terminal.\n</reanchor>");
        assertThat(both.get(1).getHeader().getReanchor()).isNull();
    }

    @Test
    void aDenialOfACallWithoutASessionReanchorsNoSession() {
        // The gatekeeper hands back the named skill's protocol even then: there is no session to put it in front of.
        decisions.pipeInput("gatekeeper", ToolDecision.newBuilder()
                .setCall(ToolCall.newBuilder().setCallId("c1").setSessionId(" ").setCaller("git").setSkill("git")
                        .setTool("git.status").setTimestamp(Records.T0).build())
                .setVerdict(Verdict.DENIED).setReason("identity verification failed: no session")
                .setProtocol("Use git.smart_commit, never the terminal.").setTimestamp(Records.T0).build());

        assertThat(deadLetters.isEmpty()).isTrue();
        KeyValueStore<String, SessionState> sessions = driver.getKeyValueStore(AssemblyTopology.SESSION_STORE);
        assertThat(sessions.get(" ")).isNull();
    }

    @Test
    void aPromptThatCannotFitIsATokenBudgetErrorEventAndDeadLetterNeverACutPacket() {
        requests.pipeInput("s1", Records.request("s1", "word ".repeat(400)).setMtu(256).build());

        assertThat(packets.isEmpty()).isTrue();
        PipelineEvent error = events.readValue();
        assertThat(error.getType()).isEqualTo(Events.TOKEN_BUDGET_ERROR);
        assertThat(error.getAttributes()).containsEntry("field", "user_prompt");
        var keyed = deadLetters.readKeyValue();
        assertThat(keyed.key).as("keyed by where the request was, as every letter").isEqualTo(
                Topics.COGNITION_REQUESTS + "-0@0");
        DeadLetter letter = keyed.value;
        assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
        assertThat(letter.getReason()).startsWith("TokenBudgetError: user_prompt needs");
        assertThat(letter.getSourceTopic()).isEqualTo(Topics.COGNITION_REQUESTS);
        assertThat(letter.getSourceOffset()).isZero();
        CognitionRequest original = topics.requests.valueSerde().deserializer()
                .deserialize("t", letter.getValue().array());
        assertThat(original.getUserPrompt()).isEqualTo("word ".repeat(400));
    }

    /*
     * TopologyTestDriver drops the records a deserialization handler returns (it has no record collector there), so
     * these check that the stream goes on; DeadLetterHandlerTest checks the letter itself and PipelineIT sees it
     * arrive on cognition.dlq of a real broker.
     */
    @Test
    void bytesThatAreNotAvroAreSkippedAndTheNextRequestIsStillAnswered() {
        rawRequests.pipeInput("s1", "not avro at all".getBytes(StandardCharsets.UTF_8));
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
        requests.pipeInput("s1", Records.request("s1", "blank council").setCouncilId(" ").build());
        requests.pipeInput("s1", Records.request("s1", "nested council").setCouncilId("ops/night").build());
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
                "unknown task_instruction_key 'make_it_so'; known: " + TaskInstructions.defaults(tokenizers).keys(),
                "retry_count -1 is negative",
                "council_id is empty (leave council_id out for council default)",
                "council_id 'ops/night' contains '/' (leave council_id out for council default)",
                "cognition request is null (tombstones are not requests)");
        assertThat(letters).extracting(DeadLetter::getSourceOffset)
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(letters.get(0).getProcessor()).isEqualTo("assemble");
        assertThat(packets.readValuesToList()).extracting(CognitionPacket::getSessionId).containsExactly("s9");
    }

    @Test
    void aRequestOnATenantsTopicNamingAnotherTenantsSessionOrScopeIsADeadLetterAndTheNextStillAnswered() {
        TestInputTopic<String, CognitionRequest> tenantA = TopicDriver.input(driver,
                topics.tenantRequestTopics().get(0));
        tenantA.pipeInput("tenant-b.chat-1", Records.request("tenant-b.chat-1", "add to b's session").build());
        tenantA.pipeInput("tenant-a.chat-1", Records.request("tenant-a.chat-1", "search b's memories")
                .setMemoryScope("tenant-b").build());
        tenantA.pipeInput("tenant-a.chat-1", Records.request("tenant-a.chat-1", "my own").setRequestId("a-r3")
                .build());

        List<DeadLetter> letters = deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getErrorKind).containsOnly(ErrorKind.VALIDATION);
        assertThat(letters).extracting(DeadLetter::getReason).containsExactly(
                "session 'tenant-b.chat-1' is not tenant tenant-a's: a request on cognition.requests.tenant-a must "
                        + "name a session 'tenant-a.<name>'",
                "memory scope 'tenant-b' is not tenant tenant-a's: a request on cognition.requests.tenant-a may name "
                        + "'tenant-a', 'tenant-a.<name>' or 'session/tenant-a.<name>', or leave memory_scope out "
                        + "for its session's own");
        assertThat(letters).extracting(DeadLetter::getSourceTopic, DeadLetter::getSourceOffset).containsExactly(
                tuple("cognition.requests.tenant-a", 0L), tuple("cognition.requests.tenant-a", 1L));
        CognitionPacket packet = packets.readValue();
        assertThat(packet.getSessionId()).isEqualTo("tenant-a.chat-1");
        assertThat(packets.isEmpty()).isTrue();
        // The refused requests left nothing behind; the bound one's scope is its session's own.
        KeyValueStore<String, SessionState> sessions = driver.getKeyValueStore(AssemblyTopology.SESSION_STORE);
        assertThat(sessions.get("tenant-b.chat-1")).isNull();
        assertThat(sessions.get("tenant-a.chat-1").getMemoryScope()).isEqualTo("session/tenant-a.chat-1");
    }

    @Test
    void theSharedTopicIsNotBoundToATenant() {
        requests.pipeInput("tenant-b.chat-1", Records.request("tenant-b.chat-1", "from the app's replay")
                .setMemoryScope("tenant-a").build());

        assertThat(packets.readValue().getSessionId()).isEqualTo("tenant-b.chat-1");
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    static Skill skill(String name, String version, String protocol) {
        return Skill.newBuilder().setName(name).setVersion(version).setDescription(name + " operations")
                .setPermissions(List.of(name + ":*")).setProtocol(protocol).setTimestamp(Records.T0).build();
    }

    private static Identity identity(String text, int version, String... authors) {
        return Identity.newBuilder().setText(text).setVersion(version).setAuthors(List.of(authors))
                .setTimestamp(Records.T0).build();
    }
}
