package io.cognitionstreams.routing;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.Named;

import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * llm.outputs -> parse markers -> one record per block and channel -> channel.* topics. EXECUTE blocks go to
 * tool.calls instead, so no command reaches channel.shell without the gatekeeper's approval.
 */
public final class RoutingTopology {

    public static final String NAME = "routing";

    private RoutingTopology() {
    }

    public static void build(StreamsBuilder builder, Topics topics, OutputRouter router) {
        // Outputs are keyed by session, so every block of a session stays in one partition and in order; the
        // records in between are never repartitioned, so they need no serde of their own.
        BranchedKStream<String, SpecificRecord> routed = builder
                .stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .flatMapValues(router::route, Named.as("parse-and-address"))
                .split(Named.as("route-"));
        routed.branch((session, record) -> record instanceof ToolCall,
                Branched.withConsumer(calls -> calls.mapValues(record -> (ToolCall) record, Named.as("as-tool-call"))
                        .to(topics.toolCalls.name(), topics.toolCalls.produced()), "execute"));
        for (Channel channel : Channel.values()) {
            if (channel == Channel.SHELL) {
                continue;
            }
            Topic<String, RoutedBlock> topic = topics.channel(channel);
            routed.branch((session, record) -> record instanceof RoutedBlock block
                            && block.getChannel().equals(channel.id()),
                    Branched.withConsumer(blocks -> blocks
                            .mapValues(record -> (RoutedBlock) record, Named.as("as-" + channel.id() + "-block"))
                            .to(topic.name(), topic.produced()), channel.id()));
        }
        routed.noDefaultBranch();
    }
}
