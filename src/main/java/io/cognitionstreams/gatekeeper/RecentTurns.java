package io.cognitionstreams.gatekeeper;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.schema.CognitionPacket;

/**
 * A session's recent turns as a council reads them: the newest messages of the history a packet showed its model
 * and the packet's prompt, one {@code role: text} block each, oldest first, within a character limit (a vote prompt
 * takes a few thousand tokens, and a proposal is kept in the council's state until it is decided). Not redacted
 * here: the proposal redacts them as it shows them, which happens for far fewer calls than there are packets.
 */
public final class RecentTurns {

    /** Characters kept of a session's turns: the newest whole messages that fit, plus the start of the one before. */
    public static final int MAX_CHARS = 3000;
    /** Characters kept of one message: a tool's long output does not push out the turns around it. */
    static final int MAX_MESSAGE_CHARS = 800;

    private RecentTurns() {
    }

    /** The turns of the packet's history and its prompt, newest last; empty when the packet has none. */
    public static String of(CognitionPacket packet) {
        Deque<String> kept = new ArrayDeque<>();
        int chars = 0;
        String prompt = packet.getPayload().getUserPrompt();
        if (prompt != null && !prompt.isBlank()) {
            kept.addFirst(block("user", prompt));
            chars += kept.getFirst().length();
        }
        List<ChatMessage> history = packet.getPayload().getHistory();
        for (int i = history.size() - 1; i >= 0 && chars < MAX_CHARS; i--) {
            ChatMessage message = history.get(i);
            if (message.getRole() == ChatRole.SYSTEM) {
                continue; // the assembly's own notes; the protocol and the identity come apart
            }
            String block = block(message);
            if (chars + block.length() > MAX_CHARS) {
                block = block.substring(0, MAX_CHARS - chars) + " [...]";
            }
            kept.addFirst(block);
            chars += block.length();
        }
        return String.join("\n", kept);
    }

    private static String block(ChatMessage message) {
        StringBuilder text = new StringBuilder(message.getContent());
        for (ChatToolCall call : message.getToolCalls()) {
            text.append(text.isEmpty() ? "" : " ").append("[calls ").append(call.getName()).append(' ')
                    .append(call.getArguments()).append(']');
        }
        return block(message.getRole().name().toLowerCase(Locale.ROOT), text.toString());
    }

    private static String block(String role, String text) {
        String oneLine = text.strip().replace("\r\n", "\n").replace('\n', ' ');
        return role + ": " + (oneLine.length() <= MAX_MESSAGE_CHARS ? oneLine
                : oneLine.substring(0, MAX_MESSAGE_CHARS) + " [... " + (oneLine.length() - MAX_MESSAGE_CHARS)
                        + " more characters]");
    }
}
