package io.cognitionstreams.prompt;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.PacketHeader;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * Turns a packet into chat messages. Only header and payload text is rendered: the meta header (packet_id,
 * parent_id, timestamp, confidence, risk_level, retry_count) is for the pipeline and never reaches the model.
 */
public final class PromptRenderer {

    /** Tokens a chat message costs beyond its content (role and separators), rounded up from OpenAI's format. */
    public static final int MESSAGE_OVERHEAD = 4;
    private static final Pattern WIRE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private PromptRenderer() {
    }

    /**
     * The packet as chat messages. Tool calls are shown with their {@link #wireId wire ids}: a TOOL message names the
     * wire id of the call it answers in the ASSISTANT message before it.
     */
    public static List<PromptMessage> render(CognitionPacket packet) {
        List<PromptMessage> messages = new ArrayList<>();
        messages.add(new PromptMessage("system", systemPrompt(packet.getHeader())));
        Set<String> used = new HashSet<>();
        Map<String, String> answerable = Map.of();
        for (ChatMessage message : packet.getPayload().getHistory()) {
            List<ChatToolCall> calls = calls(message);
            String toolCallId = null;
            if (!calls.isEmpty()) {
                Map<String, String> wire = new HashMap<>();
                List<ChatToolCall> shown = new ArrayList<>(calls.size());
                for (ChatToolCall call : calls) {
                    String id = wireId(call, used);
                    wire.putIfAbsent(call.getId(), id);
                    shown.add(ChatToolCall.newBuilder(call).setId(id).setModelId(null).build());
                }
                answerable = wire;
                calls = shown;
            } else if (message.getRole() == ChatRole.TOOL) {
                toolCallId = answerable.getOrDefault(message.getToolCallId(), message.getToolCallId());
            } else {
                answerable = Map.of();
            }
            messages.add(new PromptMessage(message.getRole().name().toLowerCase(Locale.ROOT), message.getContent(),
                    toolCallId, calls));
        }
        messages.add(new PromptMessage("user", packet.getPayload().getUserPrompt()));
        return messages;
    }

    /**
     * The id a call is shown to the model with: the model's own id for a native call, else the pipeline's, as long
     * as it is of the form every chat API takes ({@code ^[A-Za-z0-9_-]{1,64}$}) and no earlier call of the prompt
     * has it. Models repeat ids across turns (some servers count from {@code call_0} in every answer) and chat APIs
     * refuse a prompt where two calls share one; the pipeline's ids hold {@code #}. So otherwise: the pipeline's id
     * with every other character as {@code _}, made unique with a counter.
     */
    static String wireId(ChatToolCall call, Set<String> used) {
        for (String candidate : new String[]{call.getModelId(), call.getId()}) {
            if (candidate != null && WIRE_ID.matcher(candidate).matches() && used.add(candidate)) {
                return candidate;
            }
        }
        String base = call.getId().replaceAll("[^A-Za-z0-9_-]", "_");
        base = base.isEmpty() ? "call" : base.substring(0, Math.min(base.length(), 56));
        String id = base;
        for (int n = 2; !used.add(id); n++) {
            id = base + "_" + n;
        }
        return id;
    }

    /**
     * The calls an ASSISTANT message makes: its {@code tool_calls}, or the one call of the older form, a
     * {@code tool_call_id} alone, whose function is its {@code name} when recorded.
     */
    public static List<ChatToolCall> calls(ChatMessage message) {
        if (message.getRole() != ChatRole.ASSISTANT) {
            return List.of();
        }
        if (!message.getToolCalls().isEmpty() || message.getToolCallId() == null) {
            return message.getToolCalls();
        }
        return List.of(ChatToolCall.newBuilder().setId(message.getToolCallId())
                .setName(message.getName() != null ? message.getName() : "tool").build());
    }

    /**
     * Tokens of a history message as the model reads it: its content, and the name and arguments of each call it
     * makes. The chat framing of each message is {@link #MESSAGE_OVERHEAD}, counted apart.
     */
    public static int tokens(ChatMessage message, TokenCounter counter) {
        int tokens = counter.count(message.getContent());
        if (!message.getToolCalls().isEmpty()) {
            StringBuilder calls = new StringBuilder();
            for (ChatToolCall call : message.getToolCalls()) {
                calls.append(call.getName()).append('(').append(call.getArguments()).append(")\n");
            }
            tokens += counter.count(calls.toString());
        }
        return tokens;
    }

    /**
     * Layers in priority order (seed 002): persona, identity, task, then the layered context (skill protocol, tools,
     * memory). A re-anchoring protocol comes last, nearest the conversation, because it answers the model's most
     * recent mistake.
     */
    public static String systemPrompt(PacketHeader header) {
        StringBuilder prompt = new StringBuilder();
        section(prompt, "persona", header.getPersona());
        section(prompt, "identity", header.getIdentity());
        section(prompt, "task_instruction", header.getTaskInstruction());
        if (!header.getContext().isEmpty()) {
            prompt.append(header.getContext()).append('\n');
        }
        if (header.getReanchor() != null) {
            section(prompt, "reanchor", header.getReanchor());
        }
        return prompt.toString().stripTrailing();
    }

    private static void section(StringBuilder prompt, String tag, String body) {
        if (body == null || body.isEmpty()) {
            return;
        }
        prompt.append('<').append(tag).append(">\n").append(body).append("\n</").append(tag).append(">\n");
    }
}
