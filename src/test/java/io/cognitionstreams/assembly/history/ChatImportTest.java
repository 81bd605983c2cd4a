package io.cognitionstreams.assembly.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.ChatToolCall;

class ChatImportTest {

    @Test
    void aConversationWithParallelToolCallsBecomesHistoryWithEachResultAfterItsCall() throws IOException {
        ChatImport conversation = read(Path.of("src/test/resources/session-import/parallel-calls.jsonl"));

        assertThat(conversation.finish()).isEmpty();
        List<ChatMessage> messages = conversation.messages().stream().map(ChatImport.Line::message).toList();
        assertThat(messages).extracting(ChatMessage::getRole, ChatMessage::getToolCallId).containsExactly(
                tuple(ChatRole.SYSTEM, null), tuple(ChatRole.USER, null), tuple(ChatRole.ASSISTANT, null),
                tuple(ChatRole.TOOL, "call_tag"), tuple(ChatRole.TOOL, "call_build"), tuple(ChatRole.ASSISTANT, null));
        assertThat(messages.get(2).getContent()).isEmpty();
        assertThat(messages.get(2).getToolCalls()).extracting(ChatToolCall::getId, ChatToolCall::getName,
                ChatToolCall::getArguments).containsExactly(tuple("call_build", "ci_status", "{\"branch\":\"main\"}"),
                tuple("call_tag", "git_latest_tag", "{}"));
        assertThat(messages.get(3).getName()).as("a result is named after its call's function")
                .isEqualTo("git_latest_tag");
        assertThat(Histories.pairingViolations(messages)).isEmpty();
    }

    @Test
    void everyProblemIsReportedWithItsLineAndPathAndNoMessageIsKept() {
        ChatImport conversation = new ChatImport();
        String[] lines = {
            "{\"role\":\"user\",\"content\":\"hi\"}",
            "{\"role\":\"function\",\"content\":\"x\"}",
            "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                    + "\"function\":{\"name\":\"read\",\"arguments\":\"{}\"}},{\"id\":\"c2\",\"function\":{}}]}",
            "{\"role\":\"user\",\"content\":\"where is the result?\"}",
            "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"late\"}",
            "{\"role\":\"user\",\"content\":[{\"type\":\"image_url\"}],\"colour\":\"red\"}",
            "not json"};
        for (int i = 0; i < lines.length; i++) {
            conversation.add(i + 1, lines[i]);
        }

        assertThat(conversation.finish()).extracting(ChatImport.Problem::toString).containsExactly(
                "line 2: $.role: \"function\" messages (the deprecated function-calling form) are not supported; "
                        + "use tool_calls and tool messages",
                "line 3: $.tool_calls[1].function.name: a call needs its function's name, got nothing",
                "line 3: $.tool_calls[0].id: call 'c1' gets no tool message before line 4",
                "line 5: $.tool_call_id: no call 'c1' is waiting for its result here: a tool message follows the "
                        + "assistant message that made the call, through tool messages only",
                "line 6: $.colour: unknown field; a message has role, content, name, tool_calls and tool_call_id",
                "line 6: $.content[0].type: only text parts can enter a history, got \"image_url\"",
                "line 7: $: not JSON: Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or "
                        + "token 'null', 'true' or 'false') at column 1");
    }

    private static ChatImport read(Path file) throws IOException {
        ChatImport conversation = new ChatImport();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            conversation.add(i + 1, lines.get(i));
        }
        return conversation;
    }
}
