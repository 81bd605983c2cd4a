package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;
import net.jqwik.api.constraints.IntRange;

import io.cognitionstreams.assembly.AssemblyInput;
import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldBudgets;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.IdentityDefaults;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.Personas;
import io.cognitionstreams.assembly.RequestValidator;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.assembly.TokenBudgetException;
import io.cognitionstreams.assembly.compression.CompressionChain;
import io.cognitionstreams.assembly.compression.CompressionResult;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * The budget arithmetic for any MTU, prompt and history: a packet fits its MTU and every field its budget,
 * counted again here from the rendered prompt, or assembly fails whole with a TokenBudgetException. Never a cut
 * prompt, never a field shortened without the summary tag.
 */
class BudgetPropertiesTest {

    private static final Tokenizers TOKENIZERS = new Tokenizers();

    /** Stands in for the compression chain: keeps the longest prefix that fits, tagged, or gives up. */
    private static final FieldCompressor PREFIX = (field, text, target, counter) -> {
        String kept = counter.prefix(text, target - counter.count(CompressionChain.TAG));
        return kept.isEmpty()
                ? new CompressionResult.TokenBudgetError(field, counter.count(text), target, List.of())
                : new CompressionResult.Compressed(CompressionChain.TAG + kept, counter.count(text),
                        counter.count(CompressionChain.TAG + kept), "prefix");
    };

    @Property(tries = 300)
    @StatisticsReport(onFailureOnly = true)
    void aPacketFitsItsMtuAndBudgetsOrFailsWhole(@ForAll("mtus") int mtu, @ForAll("prompts") String prompt,
                                                 @ForAll("histories") List<ChatMessage> history,
                                                 @ForAll("models") String model, @ForAll boolean compresses) {
        FieldCompressor compressor = compresses ? PREFIX : FieldCompressor.NONE;
        PacketAssembler assembler = new PacketAssembler(TOKENIZERS, TaskInstructions.defaults(TOKENIZERS),
                ContextLayers.defaults(compressor), compressor);
        CognitionRequest request = Records.request("s1", prompt).setMtu(mtu).setTargetModel(model).build();
        List<ChatMessage> newestFirst = new ArrayList<>(history);
        Collections.reverse(newestFirst);
        AssemblyInput input = new AssemblyInput(request, Records.SOURCE, IdentityDefaults.TEXT, Personas.defaultPersona(),
                Optional.empty(), List::of, AssemblyInput.MemorySearch.NONE, newestFirst::iterator, Optional.empty());

        CognitionPacket packet;
        try {
            packet = assembler.assemble(input).packet();
        } catch (TokenBudgetException refused) {
            assertThat(refused.tokens()).isGreaterThan(refused.budget());
            Statistics.label("outcome").collect("refused");
            return;
        }
        Statistics.label("outcome").collect("packet");
        Statistics.label("outcome").coverage(coverage -> {
            coverage.check("packet").percentage(p -> p > 20);
            coverage.check("refused").percentage(p -> p > 10);
        });
        TokenCounter counter = TOKENIZERS.forModel(model);
        int rendered = 0;
        for (ModelClient.PromptMessage message : PromptRenderer.render(packet)) {
            rendered += counter.count(message.content()) + PromptRenderer.MESSAGE_OVERHEAD;
        }
        assertThat(rendered).as("rendered prompt, counted again").isLessThanOrEqualTo(mtu);
        assertThat(packet.getTotalTokens()).isLessThanOrEqualTo(mtu);
        assertThat(packet.getPayload().getUserPrompt()).as("the prompt is never cut").isEqualTo(prompt);

        FieldBudgets budgets = new FieldBudgets(mtu);
        int identity = counter.count(packet.getHeader().getIdentity());
        assertThat(identity).isLessThanOrEqualTo(budgets.identity());
        assertThat(counter.count(packet.getHeader().getPersona()))
                .isLessThanOrEqualTo(FieldBudgets.persona(mtu - identity));
        assertThat(counter.count(packet.getHeader().getTaskInstruction()))
                .isLessThanOrEqualTo(FieldBudgets.TASK_INSTRUCTION_MAX);
        if (!packet.getHeader().getIdentity().equals(IdentityDefaults.TEXT)) {
            assertThat(packet.getHeader().getIdentity()).as("shortened only as a tagged summary")
                    .startsWith(CompressionChain.TAG);
        }
    }

    @Property
    void fieldBudgetsStayWithinTheirBoundsForEveryValidMtu(
            @ForAll @IntRange(min = RequestValidator.MIN_MTU, max = RequestValidator.MAX_MTU) int mtu,
            @ForAll @IntRange(min = -RequestValidator.MAX_MTU, max = RequestValidator.MAX_MTU) int remaining) {
        int identity = new FieldBudgets(mtu).identity();
        assertThat(identity).isBetween(0, FieldBudgets.IDENTITY_MAX);
        assertThat((long) identity * 100).isLessThanOrEqualTo((long) mtu * FieldBudgets.IDENTITY_PERCENT_OF_MTU);

        int persona = FieldBudgets.persona(remaining);
        assertThat(persona).isBetween(0, FieldBudgets.PERSONA_MAX);
        assertThat((long) persona * 100)
                .isLessThanOrEqualTo((long) Math.max(0, remaining) * FieldBudgets.PERSONA_PERCENT_OF_REMAINING);

        int history = FieldBudgets.history(remaining);
        assertThat(history).isBetween(0, Math.max(0, remaining));
    }

    @Provide
    Arbitrary<Integer> mtus() {
        return Arbitraries.oneOf(Arbitraries.integers().between(RequestValidator.MIN_MTU, 2048),
                Arbitraries.integers().between(RequestValidator.MIN_MTU, RequestValidator.MAX_MTU));
    }

    @Provide
    Arbitrary<String> prompts() {
        return text(4000);
    }

    @Provide
    Arbitrary<List<ChatMessage>> histories() {
        Arbitrary<ChatMessage> message = Combinators.combine(Arbitraries.of(ChatRole.USER, ChatRole.ASSISTANT,
                ChatRole.TOOL), text(300)).as((role, content) -> ChatMessage.newBuilder().setRole(role)
                .setContent(content).build());
        return message.list().ofMaxSize(30);
    }

    /** Up to {@code words} words of Latin, CJK, emoji and special-token text: token counts vary per character. */
    private static Arbitrary<String> text(int words) {
        Arbitrary<String> word = Arbitraries.oneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12),
                Arbitraries.strings().withCharRange('\u4e00', '\u4e40').ofMinLength(1).ofMaxLength(4),
                Arbitraries.of("\ud83d\ude80", "<|endoftext|>", "```", "PLAN:", "\n"));
        return word.list().ofMinSize(1).ofMaxSize(words).map(list -> String.join(" ", list))
                .filter(text -> !text.isBlank());
    }

    @Provide
    Arbitrary<String> models() {
        return Arbitraries.of("gpt-4o", "gpt-4", "llama3.1");
    }
}
