package io.cognitionstreams.assembly.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;

import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.ChatToolCall;

/**
 * A conversation in OpenAI's chat format, one message a line (JSON Lines), checked whole and turned into history
 * messages. Roles: {@code system} (and {@code developer}, its newer name), {@code user}, {@code assistant} (with
 * {@code tool_calls}, parallel ones included) and {@code tool}. Each tool message must answer a call of the assistant
 * message before it, through tool messages only, and every call must get its answer before the next other message:
 * that pairing is what a chat endpoint accepts and what the history keeps.
 *
 * <p>Every problem is reported with its line and the JSON path of the value at fault, all of them, so a file is fixed
 * in one pass; a file with any problem gives no message at all.
 */
public final class ChatImport {

    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final Map<String, ChatRole> ROLES = Map.of("system", ChatRole.SYSTEM,
            "developer", ChatRole.SYSTEM, "user", ChatRole.USER, "assistant", ChatRole.ASSISTANT,
            "tool", ChatRole.TOOL);
    private static final Set<String> FIELDS = Set.of("role", "content", "name", "tool_calls", "tool_call_id");

    /** Something wrong with one line of the file, at a JSON path of its message ({@code $} is the message). */
    public record Problem(long line, String path, String detail) {
        @Override
        public String toString() {
            return line == 0 ? detail : "line " + line + ": " + path + ": " + detail;
        }
    }

    /** A message and the line it came from. */
    public record Line(long line, ChatMessage message) {
    }

    /** A call waiting for its tool message: where it was made, and its function. */
    private record Waiting(long line, int index, String function) {
    }

    private final List<Line> messages = new ArrayList<>();
    private final List<Problem> problems = new ArrayList<>();
    /** Calls of the last assistant message still waiting for their result, by id, in call order. */
    private final Map<String, Waiting> waiting = new LinkedHashMap<>();
    /** Every call id made so far, and the line that made it; and each answered call's answer line. */
    private final Map<String, Long> calls = new HashMap<>();
    private final Map<String, Long> answers = new HashMap<>();
    private final Map<String, String> functions = new HashMap<>();

    /** A line refused before it could be read as JSON (too long, not UTF-8). */
    public void refuse(long line, String detail) {
        problems.add(new Problem(line, "$", detail));
    }

    /** Reads the message on line {@code line}. */
    public void add(long line, String json) {
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            problems.add(new Problem(line, "$", "not JSON: " + e.getOriginalMessage() + " at column "
                    + e.getLocation().getColumnNr()));
            return;
        }
        if (node == null || !node.isObject()) {
            problems.add(new Problem(line, "$", "expected a JSON object, one message a line, got "
                    + (node == null ? "nothing" : node.getNodeType().name().toLowerCase(Locale.ROOT))));
            return;
        }
        int before = problems.size();
        ChatMessage message = message(line, node);
        if (problems.size() == before) {
            messages.add(new Line(line, message));
        }
    }

    /** The messages, when every line was right; the problems otherwise (including calls never answered). */
    public List<Problem> finish() {
        closeWaiting(0);
        if (problems.isEmpty() && messages.isEmpty()) {
            problems.add(new Problem(0, "$", "the file holds no message"));
        }
        return List.copyOf(problems);
    }

    /** The messages read, in order; only meaningful when {@link #finish} found no problem. */
    public List<Line> messages() {
        return List.copyOf(messages);
    }

    private ChatMessage message(long line, JsonNode node) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            JsonNode value = node.get(name);
            boolean empty = value.isNull() || value.isContainerNode() && value.isEmpty()
                    || value.isTextual() && value.asText().isEmpty();
            if (!FIELDS.contains(name) && !empty) {
                problems.add(new Problem(line, "$." + name, "unknown field; a message has role, content, name, "
                        + "tool_calls and tool_call_id"));
            }
        }
        JsonNode roleNode = node.path("role");
        ChatRole role = ROLES.get(roleNode.isTextual() ? roleNode.asText() : "");
        if (role == null) {
            problems.add(new Problem(line, "$.role", roleNode.isTextual() && roleNode.asText().equals("function")
                    ? "\"function\" messages (the deprecated function-calling form) are not supported; use "
                    + "tool_calls and tool messages"
                    : "expected one of system, developer, user, assistant, tool, got " + shown(roleNode)));
            return null;
        }
        if (role != ChatRole.TOOL) {
            closeWaiting(line);
        }
        List<ChatToolCall> toolCalls = toolCalls(line, node.path("tool_calls"), role);
        String content = content(line, node.path("content"), role, !toolCalls.isEmpty());
        ChatMessage.Builder message = ChatMessage.newBuilder().setRole(role).setContent(content == null ? ""
                : content).setToolCalls(toolCalls).setName(text(line, node, "name"));
        if (role == ChatRole.TOOL) {
            String id = answer(line, node.path("tool_call_id"));
            message.setToolCallId(id);
            if (message.getName() == null && id != null) {
                // The tool's name is the called function's: a note about the output can then name it.
                message.setName(functions.get(id));
            }
        } else if (!node.path("tool_call_id").isMissingNode() && !node.path("tool_call_id").isNull()) {
            problems.add(new Problem(line, "$.tool_call_id", "only a tool message answers a call"));
        }
        if (role == ChatRole.ASSISTANT) {
            for (int i = 0; i < toolCalls.size(); i++) {
                waiting.put(toolCalls.get(i).getId(), new Waiting(line, i, toolCalls.get(i).getName()));
            }
        }
        return message.build();
    }

    /** Calls still waiting when a message other than a tool message arrives (or the file ends) never got theirs. */
    private void closeWaiting(long nextLine) {
        waiting.forEach((id, call) -> problems.add(new Problem(call.line(), "$.tool_calls[" + call.index() + "].id",
                "call '" + id + "' gets no tool message " + (nextLine == 0 ? "before the end of the file"
                        : "before line " + nextLine))));
        waiting.clear();
    }

    private String answer(long line, JsonNode id) {
        if (!id.isTextual() || id.asText().isBlank()) {
            problems.add(new Problem(line, "$.tool_call_id", "a tool message needs the id of the call it answers, "
                    + "got " + shown(id)));
            return null;
        }
        String callId = id.asText();
        if (waiting.remove(callId) != null) {
            answers.put(callId, line);
        } else if (answers.containsKey(callId)) {
            problems.add(new Problem(line, "$.tool_call_id", "call '" + callId + "' was answered on line "
                    + answers.get(callId) + " already"));
        } else {
            problems.add(new Problem(line, "$.tool_call_id", "no call '" + callId + "' is waiting for its result "
                    + "here: a tool message follows the assistant message that made the call, through tool "
                    + "messages only" + (waiting.isEmpty() ? "" : " (waiting: " + waiting.keySet() + ")")));
        }
        return callId;
    }

    private List<ChatToolCall> toolCalls(long line, JsonNode node, ChatRole role) {
        if (node.isMissingNode() || node.isNull() || node.isArray() && node.isEmpty()) {
            return List.of();
        }
        if (role != ChatRole.ASSISTANT) {
            problems.add(new Problem(line, "$.tool_calls", "only an assistant message calls tools"));
            return List.of();
        }
        if (!node.isArray()) {
            problems.add(new Problem(line, "$.tool_calls", "expected an array of calls, got " + shown(node)));
            return List.of();
        }
        List<ChatToolCall> result = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String path = "$.tool_calls[" + i + "]";
            JsonNode call = node.get(i);
            JsonNode id = call.path("id");
            JsonNode type = call.path("type");
            JsonNode name = call.path("function").path("name");
            JsonNode arguments = call.path("function").path("arguments");
            int before = problems.size();
            if (!id.isTextual() || id.asText().isBlank()) {
                problems.add(new Problem(line, path + ".id", "a call needs an id, got " + shown(id)));
            } else if (calls.containsKey(id.asText())) {
                problems.add(new Problem(line, path + ".id", "call id '" + id.asText() + "' is used on line "
                        + calls.get(id.asText()) + " already"));
            }
            if (!type.isMissingNode() && !(type.isTextual() && type.asText().equals("function"))) {
                problems.add(new Problem(line, path + ".type", "expected \"function\", got " + shown(type)));
            }
            if (!name.isTextual() || name.asText().isBlank()) {
                problems.add(new Problem(line, path + ".function.name", "a call needs its function's name, got "
                        + shown(name)));
            }
            if (!arguments.isMissingNode() && !arguments.isTextual()) {
                problems.add(new Problem(line, path + ".function.arguments", "expected the arguments as a string "
                        + "of JSON, as the API writes them, got " + shown(arguments)));
            }
            if (problems.size() == before) {
                calls.put(id.asText(), line);
                functions.put(id.asText(), name.asText());
                result.add(ChatToolCall.newBuilder().setId(id.asText()).setName(name.asText())
                        .setArguments(arguments.isTextual() ? arguments.asText() : "{}").build());
            }
        }
        return result;
    }

    /** The text of content: a string, or the text parts of an array; null where there is none. */
    private String content(long line, JsonNode node, ChatRole role, boolean calls) {
        if (node.isMissingNode() || node.isNull()) {
            if (!(role == ChatRole.ASSISTANT && calls)) {
                problems.add(new Problem(line, "$.content", "a " + role.name().toLowerCase(Locale.ROOT)
                        + " message needs content" + (role == ChatRole.ASSISTANT ? " or tool_calls" : "")));
            }
            return null;
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (!node.isArray()) {
            problems.add(new Problem(line, "$.content", "expected a string or an array of text parts, got "
                    + shown(node)));
            return null;
        }
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode part = node.get(i);
            if (!part.path("type").isTextual() || !part.path("type").asText().equals("text")) {
                problems.add(new Problem(line, "$.content[" + i + "].type", "only text parts can enter a history, "
                        + "got " + shown(part.path("type"))));
            } else if (!part.path("text").isTextual()) {
                problems.add(new Problem(line, "$.content[" + i + "].text", "expected a string, got "
                        + shown(part.path("text"))));
            } else {
                parts.add(part.path("text").asText());
            }
        }
        return String.join("\n", parts);
    }

    private String text(long line, JsonNode node, String field) {
        JsonNode value = node.path(field);
        if (value.isMissingNode() || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            problems.add(new Problem(line, "$." + field, "expected a string, got " + shown(value)));
            return null;
        }
        return value.asText();
    }

    private static String shown(JsonNode node) {
        if (node.isMissingNode()) {
            return "nothing";
        }
        String text = node.toString();
        return text.length() <= 60 ? text : text.substring(0, 57) + "...";
    }
}
