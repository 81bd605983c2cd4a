package io.cognitionstreams.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.avro.specific.SpecificRecord;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolCall;

/**
 * Parses one LLM output and addresses each block to its channels. Every block keeps the output's lineage
 * (packet, parent, request, session) and its position, so consumers can restore order and trace it back.
 * A block addressed to the shell becomes a {@link ToolCall} for the gatekeeper instead of a channel record.
 */
public final class OutputRouter {

    /** Outputs beyond this are refused: no model answer is this long, and channel records must stay small. */
    public static final int MAX_OUTPUT_CHARS = 512 * 1024;
    /** The tool an EXECUTE block asks for; skills grant it as {@code shell:run}, {@code shell:*} or {@code *}. */
    public static final String SHELL_TOOL = "shell.run";
    /** Caller named on tool calls of a session with no active skill: the gatekeeper denies those. */
    public static final String NO_SKILL_CALLER = "agent";

    private final DestinationMatrix matrix;

    public OutputRouter(DestinationMatrix matrix) {
        this.matrix = matrix;
    }

    /** Channel records ({@link RoutedBlock}) and tool calls ({@link ToolCall}), in block order. */
    public List<SpecificRecord> route(LlmOutput output) {
        validate(output);
        List<MarkerParser.Block> blocks = MarkerParser.parse(output.getText());
        List<SpecificRecord> routed = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            MarkerParser.Block block = blocks.get(i);
            String blockId = output.getOutputId() + "#" + i;
            for (Channel channel : matrix.channels(block.marker())) {
                if (channel == Channel.SHELL) {
                    routed.add(toolCall(output, blockId, block.text()));
                    continue;
                }
                routed.add(RoutedBlock.newBuilder()
                        .setBlockId(blockId)
                        .setOutputId(output.getOutputId())
                        .setPacketId(output.getPacketId())
                        .setParentId(output.getParentId())
                        .setRequestId(output.getRequestId())
                        .setSessionId(output.getSessionId())
                        .setMarker(block.marker())
                        .setSequence(i)
                        .setBlockCount(blocks.size())
                        .setChannel(channel.id())
                        .setText(block.text())
                        .setRedactions(Map.of())
                        .setTimestamp(output.getTimestamp())
                        .build());
            }
        }
        return routed;
    }

    private static ToolCall toolCall(LlmOutput output, String blockId, String command) {
        String skill = output.getActiveSkill();
        return ToolCall.newBuilder()
                .setCallId(blockId)
                .setSessionId(output.getSessionId())
                .setPacketId(output.getPacketId())
                .setCaller(skill != null ? skill : NO_SKILL_CALLER)
                .setSkill(skill)
                .setTool(SHELL_TOOL)
                .setArguments(JsonNodeFactory.instance.objectNode().put("command", command).toString())
                .setTimestamp(output.getTimestamp())
                .build();
    }

    private static void validate(LlmOutput output) {
        if (output == null) {
            throw new InvalidRecordException("llm output is null (tombstones are not outputs)");
        }
        if (output.getSessionId().isBlank() || output.getOutputId().isBlank()) {
            throw new InvalidRecordException("llm output has an empty session_id or output_id");
        }
        if (output.getText().length() > MAX_OUTPUT_CHARS) {
            throw new InvalidRecordException("llm output has " + output.getText().length()
                    + " characters, over the limit of " + MAX_OUTPUT_CHARS);
        }
    }
}
