package io.cognitionstreams.reliability;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.cognitionstreams.model.ReplayModel;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.routing.DestinationMatrix;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.Records;

/**
 * What the pipeline must produce for one prompt under the default settings: the replay model's answer routed by the
 * default destination matrix, worked out here without Kafka. Blocks per channel and tool calls; exactly these.
 */
record Expected(Map<Channel, Integer> blocks, int toolCalls) {

    private static final ReplayModel MODEL = ReplayModel.bundled();
    private static final OutputRouter ROUTER = new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults());
    private static final Map<String, Expected> BY_TRANSCRIPT = new ConcurrentHashMap<>();

    static Expected forPrompt(String prompt) {
        ReplayModel.Transcript transcript = MODEL.pick(prompt);
        return BY_TRANSCRIPT.computeIfAbsent(transcript.name(), name -> {
            OutputRouter.Routing routing = ROUTER.route(Records.output("expected", transcript.output()).build());
            Map<Channel, Integer> blocks = new EnumMap<>(Channel.class);
            for (Channel channel : Channel.values()) {
                blocks.put(channel, 0);
            }
            for (RoutedBlock block : routing.blocks()) {
                blocks.merge(Channel.valueOf(block.getChannel().toUpperCase(java.util.Locale.ROOT)), 1,
                        Integer::sum);
            }
            return new Expected(blocks, routing.toolCalls().size());
        });
    }
}
