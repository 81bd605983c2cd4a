package io.cognitionstreams.model;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

import io.cognitionstreams.prompt.ModelClient.Completion;
import io.cognitionstreams.prompt.ModelClient.ModelCall;
import io.cognitionstreams.prompt.ModelClient.ToolSpec;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.topics.Lineage;

/** One turn of the model worker: the call a packet makes, and the output its answer is. */
public final class ModelTurn {

    private ModelTurn() {
    }

    /**
     * The call for a packet: its rendered prompt, and the tools it carries (the assembly put there those the active
     * skill may call, with --model-tools native; none with text).
     *
     * @param deltas told each piece of the answer's text as it arrives; null not to stream
     */
    public static ModelCall call(CognitionPacket packet, Consumer<String> deltas) {
        return new ModelCall(packet.getTargetModel(), PromptRenderer.render(packet), packet.getTools().stream()
                .map(tool -> new ToolSpec(tool.getName(), tool.getDescription(), tool.getParameters())).toList(),
                deltas);
    }

    /** The output answering a packet: the answer's text with its native tool calls as EXECUTE blocks. */
    public static LlmOutput output(CognitionPacket packet, Completion completion, Instant now) {
        String outputId = Lineage.outputId(packet.getMeta().getPacketId());
        Set<String> offered = new HashSet<>();
        packet.getTools().forEach(tool -> offered.add(tool.getName()));
        NativeCalls.Written written = NativeCalls.write(completion.text(), completion.toolCalls(), offered,
                outputId);
        return LlmOutput.newBuilder()
                .setOutputId(outputId)
                .setPacketId(packet.getMeta().getPacketId())
                .setParentId(packet.getMeta().getParentId())
                .setTimeTravel(packet.getMeta().getTimeTravel())
                .setOriginSessionId(packet.getMeta().getOriginSessionId())
                .setRequestId(packet.getRequestId())
                .setSessionId(packet.getSessionId())
                .setActiveSkill(packet.getHeader().getActiveSkill())
                .setModel(completion.model())
                .setText(written.text())
                .setToolCalls(written.calls())
                .setContent(written.content())
                .setTimestamp(now)
                .setLatencyMs(Duration.between(packet.getMeta().getTimestamp(), now).toMillis())
                .setPromptTokens(completion.promptTokens())
                .setCompletionTokens(completion.completionTokens())
                .setCouncilId(packet.getMeta().getCouncilId())
                .setMemoryScope(packet.getMeta().getMemoryScope())
                .build();
    }
}
