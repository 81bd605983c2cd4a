package io.cognitionstreams.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.cognitionstreams.assembly.AssemblyInput;
import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.IdentityDefaults;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.Personas;
import io.cognitionstreams.assembly.RenderedTools;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.serde.TrustedPackages;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * Packet assembly at MTU 4096 for sessions of 10, 50, 100 and 1,000 turns, with counts kept with the history (as
 * the history store keeps them) and an active skill; the catalog is that one skill alone, or 8 skills and 25 MCP
 * tools the active skill may call (the tools index then has 34 lines). The history is read newest first, as the
 * store's reverse range scan serves it; the store itself is not in the loop.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class AssemblyBench {

    @Param({"10", "50", "100", "1000"})
    public int turns;

    @Param({"1", "33"})
    public int catalog;

    private PacketAssembler assembler;
    private AssemblyInput input;

    @Setup
    public void setUp() {
        TrustedPackages.allowGeneratedClasses(); // the serdes do it in the app; the bench builds records first
        Tokenizers tokenizers = new Tokenizers();
        TokenCounter counter = tokenizers.forModel("gpt-4o");
        assembler = new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                ContextLayers.defaults(FieldCompressor.NONE), FieldCompressor.NONE);
        List<ChatMessage> newestFirst = new ArrayList<>();
        String prose = BenchTexts.englishProse(100_000);
        for (int i = 2 * turns - 1; i >= 0; i--) {
            String content = prose.substring(i * 37 % 90_000, i * 37 % 90_000 + 200 + i % 300);
            newestFirst.add(ChatMessage.newBuilder().setRole(i % 2 == 0 ? ChatRole.USER : ChatRole.ASSISTANT)
                    .setContent(content).setTokenCount(counter.count(content)).build());
        }
        Skill skill = Skill.newBuilder().setName("git").setVersion("1.0.0").setDescription("Git operations")
                .setProtocol(prose.substring(0, 1500)).setTimestamp(java.time.Instant.EPOCH).build();
        CognitionRequest request = CognitionRequest.newBuilder().setRequestId("r").setSessionId("s")
                .setUserPrompt("Summarize what we decided about the release and what is left to do.")
                .setActiveSkill("git").setTargetModel("gpt-4o").setTimestamp(java.time.Instant.EPOCH).build();
        List<Skill> skills = new ArrayList<>(List.of(skill));
        List<ToolDescriptor> tools = new ArrayList<>();
        if (catalog > 1) {
            skill = Skill.newBuilder(skill).setPermissions(List.of("mcp__files__*")).build();
            skills.set(0, skill);
            for (int i = 1; i < 8; i++) {
                skills.add(Skill.newBuilder(skill).setName("skill-" + i)
                        .setDescription(prose.substring(i * 100, i * 100 + 80)).build());
            }
            for (int i = 0; i < 25; i++) {
                tools.add(ToolDescriptor.newBuilder().setName("mcp__files__tool_" + i).setServer("files")
                        .setTool("tool_" + i).setDescription(prose.substring(i * 200, i * 200 + 150))
                        .setInputSchema("{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                                + "\"depth\":{\"type\":\"integer\"}},\"required\":[\"path\"]}")
                        .setExecutor("bench").setTimestamp(java.time.Instant.EPOCH).build());
            }
        }
        RenderedTools rendered = RenderedTools.of(tools); // as the app does: once per change of cognition.tools
        input = new AssemblyInput(request, Records.SOURCE, IdentityDefaults.TEXT, Personas.defaultPersona(),
                Optional.of(skill), () -> skills, AssemblyInput.MemorySearch.NONE, newestFirst::iterator,
                Optional.empty(), () -> rendered);
        CognitionPacket sample = assembler.assemble(input).packet();
        System.out.printf("%n%d turns, catalog of %d: packet of %d/%d tokens, %d history messages%n", turns,
                catalog, sample.getTotalTokens(), sample.getMtu(), sample.getPayload().getHistory().size());
    }

    @Benchmark
    public CognitionPacket assemble() {
        return assembler.assemble(input).packet();
    }
}
