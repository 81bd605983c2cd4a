package io.cognitionstreams.prompt;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.PacketHeader;

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
            messages.add(new PromptMessage(message.getRole().name().toLowerCase(Locale.ROOT), message.getContent()));
        }
        messages.add(new PromptMessage("user", packet.getPayload().getUserPrompt()));
        return messages;
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
