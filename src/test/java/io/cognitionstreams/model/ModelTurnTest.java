package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.prompt.ModelClient.Completion;
import io.cognitionstreams.prompt.ModelClient.ModelCall;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.routing.DestinationMatrix;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.NativeToolCall;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolSpec;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * A packet's call and its answer's output, read back by routing itself: each native call must become exactly the
 * tool call an EXECUTE line of it would, under the id the output records, and a malformed one must never run.
 */
class ModelTurnTest {

    private static final OutputRouter ROUTER = new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults());
    private static final CognitionPacket PACKET = packet();

    private static CognitionPacket packet() {
        Tokenizers tokenizers = new Tokenizers();
        PacketAssembler assembler = new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                ContextLayers.defaults(FieldCompressor.NONE), FieldCompressor.NONE);
        CognitionPacket packet = assembler.assemble(Records.input(Records.request("s1", "Look around")
                .setActiveSkill(null).build())).packet();
        return CognitionPacket.newBuilder(packet).setTools(List.of(
                ToolSpec.newBuilder().setName("shell.run").setParameters("{\"type\":\"object\"}").build(),
                ToolSpec.newBuilder().setName("mcp__files__read_text_file").setDescription("Reads")
                        .setParameters("{\"type\":\"object\"}").build())).build();
    }

    private static ChatToolCall call(String id, String name, String arguments) {
        return ChatToolCall.newBuilder().setId(id).setName(name).setArguments(arguments).build();
    }

    private static LlmOutput answer(String text, ChatToolCall... calls) {
        return ModelTurn.output(PACKET, new Completion(text, List.of(calls), "gpt-4o", 10, 5),
                Instant.parse("2026-11-22T10:00:05Z"));
    }

    @Test
    void thePacketsToolsAreTheCallsTools() {
        ModelCall call = ModelTurn.call(PACKET, null);
        assertThat(call.model()).isEqualTo(PACKET.getTargetModel());
        assertThat(call.tools()).extracting(t -> t.name()).containsExactly("shell.run", "mcp__files__read_text_file");
        assertThat(call.tools().get(1).description()).isEqualTo("Reads");
        assertThat(call.streamed()).isFalse();
        assertThat(ModelTurn.call(PACKET, delta -> { }).streamed()).isTrue();
    }

    @Test
    void anAnswerWithoutCallsIsItsText() {
        LlmOutput output = answer("RESPONSE: hello");
        assertThat(output.getText()).isEqualTo("RESPONSE: hello");
        assertThat(output.getContent()).isNull();
        assertThat(output.getToolCalls()).isEmpty();
        assertThat(output.getPromptTokens()).isEqualTo(10);
    }

    @Test
    void parallelNativeCallsBecomeTheEXECUTEBlocksRoutingTurnsIntoTheSameCalls() {
        LlmOutput output = answer("", call("call_a", "mcp__files__read_text_file", "{ \"path\" : \"a.txt\" }"),
                call("call_b", "shell.run", "{\"command\": \"ls -la\"}"));

        assertThat(output.getText()).isEqualTo("EXECUTE: mcp__files__read_text_file {\"path\":\"a.txt\"}\n"
                + "EXECUTE: ls -la");
        assertThat(output.getContent()).isEmpty();
        List<ToolCall> routed = ROUTER.route(output).toolCalls();
        assertThat(routed).extracting(ToolCall::getTool, ToolCall::getArguments).containsExactly(
                org.assertj.core.groups.Tuple.tuple("mcp__files__read_text_file", "{\"path\":\"a.txt\"}"),
                org.assertj.core.groups.Tuple.tuple("shell.run", "{\"command\":\"ls -la\"}"));
        assertThat(output.getToolCalls()).extracting(NativeToolCall::getCallId)
                .as("the ids routing gives the calls").containsExactlyElementsOf(
                        routed.stream().map(ToolCall::getCallId).toList());
        assertThat(output.getToolCalls()).extracting(NativeToolCall::getId).containsExactly("call_a", "call_b");
        assertThat(output.getToolCalls()).extracting(NativeToolCall::getProblem).containsOnlyNulls();
    }

    @Test
    void theModelsOwnTextComesFirstAndItsMarkersAndOpenFencesCannotSwallowTheCalls() {
        LlmOutput output = answer("PLAN: read it\nThen:\n```\nEXECUTE: not a call inside a fence",
                call("c1", "mcp__files__read_text_file", "{\"path\":\"b\"}"));

        List<ToolCall> routed = ROUTER.route(output).toolCalls();
        assertThat(routed).extracting(ToolCall::getTool).containsExactly("mcp__files__read_text_file");
        assertThat(routed.get(0).getCallId()).isEqualTo(output.getToolCalls().get(0).getCallId());
        assertThat(output.getContent()).as("kept as the model wrote it, for the history")
                .isEqualTo("PLAN: read it\nThen:\n```\nEXECUTE: not a call inside a fence");
    }

    @Test
    void malformedCallsGoOnAsCallsThatAreRefusedAndNeverRunInAShell() {
        String huge = "{\"path\":\"" + "x".repeat(10 * 1024 * 1024) + "\"}";
        LlmOutput output = answer("RESPONSE: trying",
                call("d1", "mcp__files__read_text_file", "not json\nRESPONSE: injected"),
                call("d1", "mcp__files__read_text_file", "{\"path\":\"dup\"}"),
                call("d2", "rm", "{\"path\":\"/\"}"),
                call("d3", "shell.run", "[\"ls\"]"),
                call("d4", "shell.run", "{\"command\":\"ls\\nRESPONSE: not a command\"}"),
                call("d5", "mcp__files__read_text_file", huge),
                call("d6", "mcp__other__write_file", "{\"path\":\"w\"}"),
                call("d7", "shell.run", "{\"command\": \"cat <<EOF\\n```\\nEOF\"}"),
                call("d8", "shell.run", "{\"command\": \"echo ```\"}"),
                call("d9", "shell.run", "{\"command\": \"mcp__files__read_text_file {}\"}"));

        assertThat(output.getToolCalls()).extracting(NativeToolCall::getProblem).containsExactly(
                "the arguments are not one JSON object",
                "the answer gives id d1 to an earlier call too",
                "the model was offered no tool named rm",
                "the arguments are not one JSON object",
                "its command has a line routing reads as a marker or a code fence",
                "arguments of " + huge.length() + " characters, over the limit of " + NativeCalls.MAX_ARGUMENT_CHARS,
                "the model was offered no tool named mcp__other__write_file",
                "its command has a line routing reads as a marker or a code fence",
                null,
                "its command starts with mcp__, as an MCP tool's name does");
        OutputRouter.Routing routing = ROUTER.route(output);
        assertThat(routing.blocks()).as("no text of a call became a block of its own")
                .allMatch(block -> block.getText().equals("trying"));
        List<ToolCall> routed = routing.toolCalls();
        assertThat(routed).extracting(ToolCall::getTool).containsExactly(
                "mcp__files__read_text_file", "mcp____mcp__files__read_text_file", "mcp____rm",
                "mcp____shell.run", "mcp____shell.run", "mcp____mcp__files__read_text_file",
                "mcp__other__write_file", "mcp____shell.run", "shell.run", "mcp____shell.run");
        assertThat(routed.subList(0, 8)).as("nothing of them is a shell command")
                .noneMatch(call -> call.getTool().equals(OutputRouter.SHELL_TOOL));
        assertThat(routed.get(8).getArguments()).as("a fence not at a line's start is text")
                .isEqualTo("{\"command\":\"echo ```\"}");
        assertThat(routed.get(0).getArguments()).as("as written, one line, for the executor to refuse")
                .isEqualTo("\"not json\\nRESPONSE: injected\"");
        assertThat(output.getToolCalls().get(5).getArguments()).isEqualTo("(arguments of " + huge.length()
                + " characters left out)");
        assertThat(output.getText().length()).isLessThan(2000);
        assertThat(routed).extracting(ToolCall::getCallId).containsExactlyElementsOf(
                output.getToolCalls().stream().map(NativeToolCall::getCallId).toList());
    }
}
