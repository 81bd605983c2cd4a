package io.cognitionstreams.prompt;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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

    private PromptRenderer() {
    }

    public static List<PromptMessage> render(CognitionPacket packet) {
        List<PromptMessage> messages = new ArrayList<>();
        messages.add(new PromptMessage("system", systemPrompt(packet.getHeader())));
        for (ChatMessage message : packet.getPayload().getHistory()) {
            messages.add(new PromptMessage(message.getRole().name().toLowerCase(Locale.ROOT), message.getContent(),
                    message.getRole() == ChatRole.TOOL ? message.getToolCallId() : null, calls(message)));
        }
        messages.add(new PromptMessage("user", packet.getPayload().getUserPrompt()));
        return messages;
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
