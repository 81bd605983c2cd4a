package io.cognitionstreams.assembly;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.cognitionstreams.assembly.compression.CompressionResult;
import io.cognitionstreams.assembly.history.ContextPruner;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.prompt.ToolCalling;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.MetaHeader;
import io.cognitionstreams.schema.PacketHeader;
import io.cognitionstreams.schema.PacketPayload;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.signing.Sha256;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * Builds a cognition packet within its MTU and field budgets (seed 003 section 4, seed 002's layers), counted in
 * the target model's own tokens. Deterministic: the same input gives the same packet bytes (ids derive from the
 * request, timestamps are the request's), which replays and forks rely on.
 *
 * <p>Order of work: identity, persona and task instruction within their limits (compressed when over); the user
 * prompt reserved whole; the context layers in priority order, each within its share; for a model that calls tools
 * natively, the specs of the tools it may call, within theirs; then as much recent history as fits its budget, newest first, never starting with a tool result whose call was left out. Finally the rendered
 * prompt is counted as the model will see it; if framing pushes it over the MTU, the oldest history goes first.
 */
public final class PacketAssembler {

    public static final int DEFAULT_MTU = 4096;

    private final Tokenizers tokenizers;
    private final TaskInstructions instructions;
    private final List<ContextProvider> providers;
    private final FieldCompressor compressor;
    private final ToolCalling calling;

    /** For a model that calls tools with EXECUTE lines: packets carry no tool specs. */
    public PacketAssembler(Tokenizers tokenizers, TaskInstructions instructions, List<ContextProvider> providers,
                           FieldCompressor compressor) {
        this(tokenizers, instructions, providers, compressor, ToolCalling.TEXT);
    }

    /** @param calling how the model calls tools: natively, packets carry the specs of those it may call */
    public PacketAssembler(Tokenizers tokenizers, TaskInstructions instructions, List<ContextProvider> providers,
                           FieldCompressor compressor, ToolCalling calling) {
        this.tokenizers = tokenizers;
        this.instructions = instructions;
        this.providers = List.copyOf(providers);
        this.compressor = compressor;
        this.calling = calling;
    }

    /** A packet and the events that tell how it was built. */
    public record Assembly(CognitionPacket packet, List<PipelineEvent> events) {
    }

    /** The task-instruction registry packets are built with: which stage each key is. */
    public TaskInstructions instructions() {
        return instructions;
    }

    public TokenCounter counterFor(String model) {
        return tokenizers.forModel(model);
    }

    public TokenCounter counterForEncoding(String encodingName) {
        return tokenizers.forEncodingName(encodingName);
    }

    public Assembly assemble(AssemblyInput input) {
        CognitionRequest request = input.request();
        TokenCounter counter = tokenizers.forModel(request.getTargetModel());
        TaskInstructions.Instruction instruction = instructions.find(request.getTaskInstructionKey())
                .orElseThrow(() -> new InvalidRecordException("unknown task_instruction_key '"
                        + request.getTaskInstructionKey() + "'; known: " + instructions.keys()));
        int mtu = request.getMtu() != null ? request.getMtu() : DEFAULT_MTU;
        String packetId = packetId(request.getRequestId(), request.getRetryCount());
        List<PipelineEvent> events = new ArrayList<>();
        Map<String, Integer> fieldTokens = new LinkedHashMap<>();
        List<Layer> layers = new ArrayList<>();

        FieldBudgets budgets = new FieldBudgets(mtu);
        Fitted identity = fit("identity", input.identity(), budgets.identity(), counter, input, packetId, events);
        int remaining = mtu - identity.tokens();
        Fitted persona = fit("persona", Personas.render(input.persona()), FieldBudgets.persona(remaining),
                counter, input, packetId, events);
        remaining -= persona.tokens();
        int taskTokens = counter.count(instruction.text());
        if (taskTokens > FieldBudgets.TASK_INSTRUCTION_MAX) {
            throw new TokenBudgetException("task_instruction", taskTokens, FieldBudgets.TASK_INSTRUCTION_MAX,
                    "registry text too long in " + counter.encodingName());
        }
        remaining -= taskTokens;
        int promptTokens = counter.count(request.getUserPrompt());
        int promptCost = promptTokens + PromptRenderer.MESSAGE_OVERHEAD;
        if (promptCost > remaining) {
            throw new TokenBudgetException("user_prompt", promptCost, Math.max(remaining, 0),
                    "the user prompt is kept verbatim, never cut");
        }
        remaining -= promptCost;
        layers.add(persona.asLayer("persona", ContextLayers.PERSONA_PRIORITY));
        layers.add(identity.asLayer("identity", ContextLayers.IDENTITY_PRIORITY));

        String reanchor = null;
        if (input.reanchor().isPresent()) {
            Fitted fitted = fit("reanchor", input.reanchor().get(), remaining * 30 / 100, counter, input,
                    packetId, events);
            reanchor = fitted.text();
            remaining -= fitted.tokens();
            fieldTokens.put("reanchor", fitted.tokens());
        }
        int shareBase = remaining;
        StringBuilder context = new StringBuilder();
        for (ContextProvider provider : providers) {
            int budget = Math.min(shareBase * provider.percentOfRemaining() / 100, remaining);
            Layer layer = provider.provide(input, budget, counter);
            layers.add(layer);
            if (!layer.text().isEmpty()) {
                context.append(context.length() == 0 ? "" : "\n").append(layer.text());
                remaining -= layer.tokens();
                fieldTokens.put(layer.name(), layer.tokens());
            }
            if (layer.status() == Layer.Status.COMPRESSED) {
                events.add(overrun(input, packetId, layer.name(), layer.note(), layer.originalTokens(),
                        layer.tokens(), budget));
            }
        }

        ToolSpecs.Fitted specs = calling == ToolCalling.NATIVE
                ? ToolSpecs.fit(input.skill(), input.tools().get(), FieldBudgets.toolSpecs(remaining), counter)
                : ToolSpecs.Fitted.NONE;
        remaining -= specs.tokens();

        int historyBudget = FieldBudgets.history(remaining);
        Deque<ChatMessage> history = pruned(request, recentHistory(input.history().get(), historyBudget, counter),
                counter);
        while (cost(history, counter) > historyBudget && !history.isEmpty()) {
            dropOldest(history);
        }
        PacketHeader header = PacketHeader.newBuilder()
                .setIdentity(identity.text())
                .setPersona(persona.text())
                .setTaskInstructionKey(instruction.key())
                .setTaskInstruction(instruction.text())
                .setActiveSkill(request.getActiveSkill())
                .setContext(context.toString())
                .setReanchor(reanchor)
                .build();
        int systemTokens = counter.count(PromptRenderer.systemPrompt(header)) + PromptRenderer.MESSAGE_OVERHEAD;
        int historyTokens = cost(history, counter);
        int dropped = 0;
        while (systemTokens + historyTokens + promptCost + specs.tokens() > mtu && !history.isEmpty()) {
            dropOldest(history);
            historyTokens = cost(history, counter);
            dropped++;
        }
        int total = systemTokens + historyTokens + promptCost + specs.tokens();
        if (total > mtu) {
            throw new TokenBudgetException("packet", total, mtu, "framing of the rendered prompt");
        }
        fieldTokens.put("identity", identity.tokens());
        fieldTokens.put("persona", persona.tokens());
        fieldTokens.put("task_instruction", taskTokens);
        fieldTokens.put("history", historyTokens);
        fieldTokens.put("user_prompt", promptTokens);
        if (!specs.specs().isEmpty()) {
            fieldTokens.put("tool_specs", specs.tokens());
        }

        CognitionPacket packet = CognitionPacket.newBuilder()
                .setMeta(MetaHeader.newBuilder()
                        .setPacketId(packetId)
                        .setParentId(request.getParentId())
                        .setTimeTravel(request.getTimeTravel())
                        .setOriginSessionId(request.getOriginSessionId())
                        .setTimestamp(request.getTimestamp())
                        .setRetryCount(request.getRetryCount() > 0 ? request.getRetryCount() : null)
                        .setCouncilId(request.getCouncilId())
                        .setMemoryScope(request.getMemoryScope())
                        .build())
                .setRequestId(request.getRequestId())
                .setSessionId(request.getSessionId())
                .setTargetModel(request.getTargetModel())
                .setEncoding(counter.encodingName())
                .setMtu(mtu)
                .setHeader(header)
                .setPayload(PacketPayload.newBuilder()
                        .setHistory(new ArrayList<>(history))
                        .setUserPrompt(request.getUserPrompt())
                        .build())
                .setFieldTokens(fieldTokens)
                .setTotalTokens(total)
                .setTools(specs.specs())
                .build();
        events.add(0, assembled(packet, input, layers, history.size(), dropped, specs));
        return new Assembly(packet, events);
    }

    private record Fitted(String text, int tokens, int originalTokens, Layer.Status status, String method) {
        Layer asLayer(String name, int priority) {
            return new Layer(name, priority, text, tokens, originalTokens, status, method);
        }
    }

    private Fitted fit(String field, String text, int budget, TokenCounter counter, AssemblyInput input,
                       String packetId, List<PipelineEvent> events) {
        int tokens = counter.count(text);
        if (tokens <= budget) {
            return new Fitted(text, tokens, tokens, Layer.Status.KEPT, "");
        }
        CompressionResult outcome = compressor.compress(field, text, budget, counter);
        if (outcome instanceof CompressionResult.Compressed compressed) {
            events.add(overrun(input, packetId, field, compressed.method(), tokens,
                    compressed.compressedTokens(), budget));
            return new Fitted(compressed.text(), compressed.compressedTokens(), tokens, Layer.Status.COMPRESSED,
                    compressed.method());
        }
        throw new TokenBudgetException(field, tokens, budget,
                FieldCompressor.reason((CompressionResult.TokenBudgetError) outcome));
    }

    /**
     * The newest messages that fit, oldest first. The window is contiguous (no holes in the conversation) and
     * never opens with a tool result: its call was left out, and chat APIs reject a tool result without one.
     */
    static Deque<ChatMessage> recentHistory(Iterator<ChatMessage> newestFirst, int budget, TokenCounter counter) {
        Deque<ChatMessage> window = new ArrayDeque<>();
        int used = 0;
        while (newestFirst.hasNext()) {
            ChatMessage message = newestFirst.next();
            int tokens = tokens(message, counter);
            if (used + tokens + PromptRenderer.MESSAGE_OVERHEAD > budget) {
                break;
            }
            window.addFirst(message);
            used += tokens + PromptRenderer.MESSAGE_OVERHEAD;
        }
        while (!window.isEmpty() && window.peekFirst().getRole() == ChatRole.TOOL) {
            window.removeFirst();
        }
        return window;
    }

    private static void dropOldest(Deque<ChatMessage> history) {
        history.removeFirst();
        while (!history.isEmpty() && history.peekFirst().getRole() == ChatRole.TOOL) {
            history.removeFirst();
        }
    }

    private static int tokens(ChatMessage message, TokenCounter counter) {
        return message.getTokenCount() != null ? message.getTokenCount() : PromptRenderer.tokens(message, counter);
    }

    private static int cost(Deque<ChatMessage> history, TokenCounter counter) {
        int sum = 0;
        for (ChatMessage message : history) {
            sum += tokens(message, counter) + PromptRenderer.MESSAGE_OVERHEAD;
        }
        return sum;
    }

    /**
     * Seed 001's ContextPruner on the window: tool outputs outside the model's working memory shortened, and on a
     * retry one recovery lesson with the reason the previous attempt failed.
     */
    private static Deque<ChatMessage> pruned(CognitionRequest request, Deque<ChatMessage> window,
                                             TokenCounter counter) {
        ContextPruner pruner = ContextPruner.forModel(request.getTargetModel()).countingWith(counter);
        List<ChatMessage> messages = new ArrayList<>(window);
        List<ChatMessage> result = request.getRetryCount() > 0
                ? pruner.pruneForRetry(messages, request.getRetryReason() != null ? request.getRetryReason()
                        : "retry " + request.getRetryCount() + " without a reason")
                : pruner.prune(messages);
        return new ArrayDeque<>(result);
    }

    private static PipelineEvent assembled(CognitionPacket packet, AssemblyInput input, List<Layer> layers,
                                           int historyMessages, int droppedForFraming, ToolSpecs.Fitted specs) {
        Persona persona = input.persona();
        Map<String, String> attributes = new LinkedHashMap<>();
        // Which version of a persona shaped the packet: personas change on a live topic.
        attributes.put("persona", persona.getName() + " " + persona.getVersion());
        for (Layer layer : layers) {
            attributes.put("layer." + layer.name(), "priority=" + layer.priority() + " tokens=" + layer.tokens()
                    + " chars=" + layer.text().length() + " status=" + layer.status()
                    + (layer.note().isEmpty() ? "" : " note=" + layer.note()));
        }
        if (specs.offered() > 0) {
            // A spec left out is a tool the model cannot call natively: say so where operators look.
            attributes.put("tool_specs", "kept=" + specs.specs().size() + " of " + specs.offered() + " tokens="
                    + specs.tokens());
        }
        attributes.put("history_messages", String.valueOf(historyMessages));
        attributes.put("history_tokens", String.valueOf(packet.getFieldTokens().get("history")));
        attributes.put("history_dropped_for_framing", String.valueOf(droppedForFraming));
        attributes.put("total_tokens", String.valueOf(packet.getTotalTokens()));
        attributes.put("mtu", String.valueOf(packet.getMtu()));
        attributes.put("encoding", packet.getEncoding());
        return PipelineEvents.event(input.source().eventId(Events.CONTEXT_ASSEMBLED), Events.CONTEXT_ASSEMBLED,
                Severity.INFO, PipelineEvents.Turn.of(packet), "packet of " + packet.getTotalTokens() + "/"
                        + packet.getMtu() + " tokens (" + packet.getEncoding() + ")", attributes,
                packet.getMeta().getTimestamp());
    }

    private static PipelineEvent overrun(AssemblyInput input, String packetId, String field, String method,
                                         int originalTokens, int compressedTokens, int budget) {
        CognitionRequest request = input.request();
        return PipelineEvents.event(input.source().eventId(Events.TOKEN_BUDGET_OVERRUN + "/" + field),
                Events.TOKEN_BUDGET_OVERRUN, Severity.WARN,
                PipelineEvents.Turn.of(request).withPacket(packetId), field + " over its budget of " + budget
                        + " tokens: " + originalTokens + " compressed to " + compressedTokens + " (" + method + ")",
                Map.of("field", field, "budget", String.valueOf(budget), "original_tokens",
                        String.valueOf(originalTokens), "compressed_tokens", String.valueOf(compressedTokens),
                        "method", method), request.getTimestamp());
    }

    /** 8 hex characters (seed 003 section 4.1.1), derived so a replayed request gets the same id. */
    static String packetId(String requestId, int retryCount) {
        return HexFormat.of().formatHex(Sha256.of(requestId + "#" + retryCount), 0, 4);
    }
}
