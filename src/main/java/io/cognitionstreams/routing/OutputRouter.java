package io.cognitionstreams.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.avro.specific.SpecificRecord;


import io.cognitionstreams.council.CouncilIds;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.redaction.Redaction;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.serde.Utf8;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Lineage;

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
    /** How the council knows an escalation came from routing and must not be escalated again. */
    public static final String SENDER = CouncilSettings.ROUTER_SENDER;
    public static final String REDACTION_EVENT = "REDACTION";
    /** The tool an EXECUTE block asks for; skills grant it as {@code shell:run}, {@code shell:*} or {@code *}. */
    public static final String SHELL_TOOL = "shell.run";
    /** Caller named on tool calls of a session with no active skill: the gatekeeper denies those. */
    public static final String NO_SKILL_CALLER = "agent";

    /** Besides its blocks, an output may lead to a redaction event and an escalation. */
    static final int RECORDS_BESIDE_BLOCKS = 2;

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

    /** Which channels each kind of block goes to. */
    public DestinationMatrix matrix() {
        return matrix;
    }

    /** How much one output may become. */
    public RoutingLimits limits() {
        return limits;
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

    /**
     * Everything one output leads to, in order: its blocks, one call per EXECUTE block, a REDACTION event when
     * anything was scrubbed, and an ESCALATION for the council when the output makes its session's interrupt
     * streak reach {@value InterruptStreak#ESCALATE_AT} ({@code streaks} is updated).
     *
     * @param source where the output was read: its event's id
     */
    public List<SpecificRecord> records(LlmOutput output, InterruptStreak.Memory streaks,
                                        PipelineEvents.Source source) {
        Routing routing = route(output);
        List<SpecificRecord> records = new ArrayList<>(routing.blocks());
        records.addAll(routing.toolCalls());
        if (!routing.redactions().isEmpty()) {
            records.add(redactionEvent(output, routing.redactions(), source));
        }
        String session = output.getSessionId();
        int streak = streaks.streak(session);
        for (int sequence = 0; sequence < routing.markers().size(); sequence++) {
            int next = InterruptStreak.next(streak, routing.markers().get(sequence));
            if (InterruptStreak.escalates(streak, next)) {
                records.add(escalation(output, sequence));
            }
            streak = next;
        }
        streaks.streak(session, streak);
        return records;
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
            String blockId = Lineage.blockId(output.getOutputId(), i);
            Redaction scrubbed = null;
            for (Channel channel : matrix.channels(block.marker())) {
                if (channel == Channel.SHELL) {
                    // No secret in clear on tool.calls: the command is approved and run in this form.
                    Redaction command = Redactor.secrets(block.text());
                    command.counts().forEach((type, count) -> redactions.merge(type, count, Integer::sum));
                    calls.add(toolCall(output, blockId, i, parsed.size(), command.text()));
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
                        .setTimeTravel(output.getTimeTravel())
                        .setOriginSessionId(output.getOriginSessionId())
                        .setRequestId(output.getRequestId())
                        .setSessionId(output.getSessionId())
                        .setMarker(block.marker())
                        .setSequence(i)
                        .setBlockCount(parsed.size())
                        .setChannel(channel.id())
                        .setText(scrubbed.text())
                        .setRedactions(scrubbed.counts())
                        .setTimestamp(output.getTimestamp())
                        .setMemoryScope(output.getMemoryScope())
                        .build());
            }
        }
        // The session waits for this many results before it may continue on its own (auto-continue).
        calls.forEach(call -> call.setCallCount(calls.size()));
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

    private static PipelineEvent redactionEvent(LlmOutput output, Map<String, Integer> counts,
                                                PipelineEvents.Source source) {
        Map<String, String> attributes = new TreeMap<>();
        counts.forEach((type, count) -> attributes.put(type, String.valueOf(count)));
        return PipelineEvents.event(source.eventId(REDACTION_EVENT), REDACTION_EVENT, Severity.INFO,
                PipelineEvents.Turn.of(output), "redacted " + counts.values().stream().mapToInt(Integer::intValue)
                        .sum() + " entities before the channels", attributes, output.getTimestamp());
    }

    /**
     * The escalation raised by block {@code sequence}, the INTERRUPT that made the streak reach the threshold. Its id
     * derives from that block, so a redelivered output raises the same message, and two streaks that end in one
     * output raise two. docs/council.md shows it; RoutingTopologyTest checks the code against that example.
     */
    private static CouncilMessage escalation(LlmOutput output, int sequence) {
        return CouncilMessage.newBuilder()
                .setMsgId(output.getOutputId() + "-interrupts-" + sequence)
                .setParentId(output.getPacketId())
                .setCouncilId(CouncilIds.orDefault(output.getCouncilId()))
                .setTimestamp(output.getTimestamp())
                .setSender(SENDER)
                .setRole("observer")
                .setType(CouncilMessageType.ESCALATION)
                .setRiskLevel(RiskLevel.HIGH)
                .setContent(InterruptStreak.ESCALATE_AT + " consecutive INTERRUPT blocks in session "
                        + output.getSessionId() + ", ending at block " + Lineage.blockId(output.getOutputId(),
                        sequence) + " (seed 003 section 8.4): Prime's attention needed.")
                .setSessionId(output.getSessionId())
                .setTimeTravel(output.getTimeTravel())
                .setOriginSessionId(output.getOriginSessionId())
                .build();
    }

    private static ToolCall toolCall(LlmOutput output, String blockId, int index, int blockCount, String command) {
        String skill = output.getActiveSkill();
        ExecuteLine line = ExecuteLine.parse(command);
        // A re-run turn's call names the original's call at the same place: what a replay answers it with.
        String original = output.getTimeTravel() != null && output.getParentId() != null
                ? Lineage.blockId(Lineage.outputId(output.getParentId()), index) : null;
        return ToolCall.newBuilder()
                .setCallId(blockId)
                .setSessionId(output.getSessionId())
                .setPacketId(output.getPacketId())
                .setRequestId(output.getRequestId())
                .setTimeTravel(output.getTimeTravel())
                .setParentId(original)
                .setOriginSessionId(output.getOriginSessionId())
                .setCouncilId(output.getCouncilId())
                .setBlockCount(blockCount)
                .setCaller(skill != null ? skill : NO_SKILL_CALLER)
                .setSkill(skill)
                .setTool(line.tool())
                .setArguments(line.arguments())
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
