package io.cognitionstreams.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.redaction.Redaction;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.serde.Utf8;
import io.cognitionstreams.topics.Channel;

/**
 * Parses one LLM output, scrubs every block (PII, content policy, profanity) and addresses it to its channels.
 * Every block keeps the output's lineage (packet, parent, request, session) and its position, so consumers can
 * restore order and trace it back. A block addressed to the shell becomes a {@link ToolCall} for the gatekeeper
 * instead of a channel record. The call carries the command with its secrets redacted and nothing else: the
 * executor runs exactly what was approved, so the form that travels is the form that runs, and no topic holds a
 * secret in clear (docs/redaction.md, "Commands and secrets"). Addresses and the like stay, since commands need them.
 */
public final class OutputRouter {

    /**
     * Outputs beyond this (UTF-8 bytes of text) are refused: no model answer is this long, and every block of one
     * must fit a channel record.
     */
    public static final int MAX_OUTPUT_BYTES = 512 * 1024;
    /** The tool an EXECUTE block asks for; skills grant it as {@code shell:run}, {@code shell:*} or {@code *}. */
    public static final String SHELL_TOOL = "shell.run";
    /** Caller named on tool calls of a session with no active skill: the gatekeeper denies those. */
    public static final String NO_SKILL_CALLER = "agent";

    /** Besides its blocks, an output may lead to a redaction event and an escalation. */
    private static final int RECORDS_BESIDE_BLOCKS = 2;

    private final DestinationMatrix matrix;
    private final Redactor redactor;
    private final RoutingLimits limits;

    public OutputRouter(DestinationMatrix matrix, Redactor redactor) {
        this(matrix, redactor, RoutingLimits.defaults());
    }

    public OutputRouter(DestinationMatrix matrix, Redactor redactor, RoutingLimits limits) {
        this.matrix = matrix;
        this.redactor = redactor;
        this.limits = limits;
    }

    /** The scrubber every block goes through; the gatekeeper uses the same one for channel.shell. */
    public Redactor redactor() {
        return redactor;
    }

    /**
     * @param blocks     one channel record per block and channel, in block order
     * @param toolCalls  one call per EXECUTE block, in block order
     * @param markers    every block's marker in order, redirected or not (for interrupt accounting)
     * @param redactions what was scrubbed from the whole output, per entity type
     */
    public record Routing(List<RoutedBlock> blocks, List<ToolCall> toolCalls, List<Marker> markers,
                          Map<String, Integer> redactions) {
    }

    public Routing route(LlmOutput output) {
        validate(output);
        List<MarkerParser.Block> parsed = MarkerParser.parse(output.getText());
        requireWithinLimits(parsed);
        List<RoutedBlock> blocks = new ArrayList<>();
        List<ToolCall> calls = new ArrayList<>();
        List<Marker> markers = new ArrayList<>(parsed.size());
        Map<String, Integer> redactions = new TreeMap<>();
        for (int i = 0; i < parsed.size(); i++) {
            MarkerParser.Block block = parsed.get(i);
            markers.add(block.marker());
            String blockId = output.getOutputId() + "#" + i;
            Redaction scrubbed = null;
            for (Channel channel : matrix.channels(block.marker())) {
                if (channel == Channel.SHELL) {
                    // No secret in clear on tool.calls: the command is approved and run in this form.
                    Redaction command = Redactor.secrets(block.text());
                    command.counts().forEach((type, count) -> redactions.merge(type, count, Integer::sum));
                    calls.add(toolCall(output, blockId, parsed.size(), command.text()));
                    continue;
                }
                if (scrubbed == null) {
                    scrubbed = redactor.redact(block.text());
                    scrubbed.counts().forEach((type, count) -> redactions.merge(type, count, Integer::sum));
                }
                blocks.add(RoutedBlock.newBuilder()
                        .setBlockId(blockId)
                        .setOutputId(output.getOutputId())
                        .setPacketId(output.getPacketId())
                        .setParentId(output.getParentId())
                        .setRequestId(output.getRequestId())
                        .setSessionId(output.getSessionId())
                        .setMarker(block.marker())
                        .setSequence(i)
                        .setBlockCount(parsed.size())
                        .setChannel(channel.id())
                        .setText(scrubbed.text())
                        .setRedactions(scrubbed.counts())
                        .setTimestamp(output.getTimestamp())
                        .build());
            }
        }
        return new Routing(blocks, calls, markers, redactions);
    }

    /** Counted before anything is scrubbed or built: a refused output costs no more than its parse. */
    private void requireWithinLimits(List<MarkerParser.Block> parsed) {
        if (parsed.size() > limits.maxBlocks()) {
            throw new InvalidRecordException("llm output has " + parsed.size() + " blocks, over the limit of "
                    + limits.maxBlocks() + " per output (--max-blocks-per-output)");
        }
        long records = RECORDS_BESIDE_BLOCKS;
        for (MarkerParser.Block block : parsed) {
            records += matrix.channels(block.marker()).size();
        }
        if (records > limits.maxRecords()) {
            throw new InvalidRecordException("llm output would become " + records + " records (" + parsed.size()
                    + " blocks on their channels), over the limit of " + limits.maxRecords()
                    + " per output (--max-records-per-output)");
        }
    }

    private static ToolCall toolCall(LlmOutput output, String blockId, int blockCount, String command) {
        String skill = output.getActiveSkill();
        return ToolCall.newBuilder()
                .setCallId(blockId)
                .setSessionId(output.getSessionId())
                .setPacketId(output.getPacketId())
                .setRequestId(output.getRequestId())
                .setBlockCount(blockCount)
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
        long bytes = Utf8.length(output.getText());
        if (bytes > MAX_OUTPUT_BYTES) {
            throw new InvalidRecordException("llm output has " + bytes + " bytes of text, over the limit of "
                    + MAX_OUTPUT_BYTES);
        }
    }
}
