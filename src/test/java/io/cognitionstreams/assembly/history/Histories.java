package io.cognitionstreams.assembly.history;

import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.ChatToolCall;

/** History builders and the checks the pruner's output must pass. */
final class Histories {

    private Histories() {
    }

    static ChatMessage system(String text) {
        return message(ChatRole.SYSTEM, text, null);
    }

    static ChatMessage user(String text) {
        return message(ChatRole.USER, text, null);
    }

    static ChatMessage assistant(String text) {
        return message(ChatRole.ASSISTANT, text, null);
    }

    static ChatMessage call(String id, String text) {
        return message(ChatRole.ASSISTANT, text, id);
    }

    /** An ASSISTANT message making parallel calls, each {@code id} calling function {@code read}. */
    static ChatMessage calls(String text, String... ids) {
        return ChatMessage.newBuilder().setRole(ChatRole.ASSISTANT).setContent(text)
                .setToolCalls(Arrays.stream(ids).map(id -> ChatToolCall.newBuilder().setId(id).setName("read")
                        .setArguments("{\"path\":\"" + id + "\"}").build()).toList())
                .build();
    }

    static ChatMessage result(String id, String text) {
        return message(ChatRole.TOOL, text, id);
    }

    static ChatMessage message(ChatRole role, String text, String toolCallId) {
        return ChatMessage.newBuilder().setRole(role).setContent(text).setToolCallId(toolCallId).build();
    }

    /**
     * Breaches of the pairing rules an OpenAI-compatible endpoint enforces, as readable lines: a TOOL message must be
     * preceded, through TOOL messages only, by an ASSISTANT message that makes its call, and every call of an
     * ASSISTANT message must be answered in the run of TOOL messages that directly follows it.
     */
    static List<String> pairingViolations(List<ChatMessage> history) {
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < history.size(); i++) {
            ChatMessage message = history.get(i);
            String id = message.getToolCallId();
            if (message.getRole() == ChatRole.TOOL) {
                int call = i - 1;
                while (call >= 0 && history.get(call).getRole() == ChatRole.TOOL) {
                    call--;
                }
                if (id == null || call < 0 || history.get(call).getRole() != ChatRole.ASSISTANT
                        || PromptRenderer.calls(history.get(call)).stream().noneMatch(c -> c.getId().equals(id))) {
                    violations.add("TOOL at " + i + " (" + id + ") answers no call before it");
                }
            } else if (message.getRole() == ChatRole.ASSISTANT) {
                Set<String> answered = new HashSet<>();
                for (int next = i + 1; next < history.size() && history.get(next).getRole() == ChatRole.TOOL;
                     next++) {
                    answered.add(history.get(next).getToolCallId());
                }
                for (ChatToolCall call : PromptRenderer.calls(message)) {
                    if (!answered.contains(call.getId())) {
                        violations.add("ASSISTANT call at " + i + " (" + call.getId() + ") has no result after it");
                    }
                }
            }
        }
        return violations;
    }

    static boolean hasLoneSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** Strict: the default String.getBytes would silently replace an unencodable char with '?'. */
    static boolean encodesAsUtf8(String text) {
        try {
            StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
