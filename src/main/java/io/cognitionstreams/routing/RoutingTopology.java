package io.cognitionstreams.routing;

import java.util.Map;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.deadletter.InvalidRecordException;
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
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Marker routing: llm.outputs -> parse, scrub, address -> channel.* topics; EXECUTE blocks to tool.calls instead (only
 * an approved call reaches channel.shell, through the gatekeeper); what was redacted to cognition.events; three
 * INTERRUPTs in a row in a session to the council as one ESCALATION.
 */
public final class RoutingTopology {

    public static final String NAME = "routing";
    public static final String INTERRUPT_STORE = "interrupt-streaks";
    /** The council every escalation goes to (council.messages is keyed by council id). */
    public static final String COUNCIL_ID = "default";
    /** How the council knows an escalation came from routing and must not be escalated again. */
    public static final String SENDER = "router";
    public static final String REDACTION_EVENT = "REDACTION";

    private RoutingTopology() {
    }

    public static void build(StreamsBuilder builder, Topics topics, OutputRouter router) {
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(INTERRUPT_STORE),
                Serdes.String(), Serdes.Integer()));
        // Outputs are keyed by session, so every block of a session stays in one partition and in order, and the
        // session's interrupt streak lives in the same task; nothing is repartitioned.
        BranchedKStream<String, SpecificRecord> routed = builder
                .stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .process(() -> new Route(router, topics.limits()), Named.as("parse-scrub-address"), INTERRUPT_STORE)
                .split(Named.as("route-"));
        branch(routed, ToolCall.class, topics.toolCalls, "execute");
        branch(routed, PipelineEvent.class, topics.events, "event");
        branch(routed, CouncilMessage.class, topics.councilMessages, "escalation");
        for (Channel channel : Channel.values()) {
            if (channel == Channel.SHELL) {
                continue;
            }
            Topic<String, RoutedBlock> topic = topics.channel(channel);
            routed.branch((key, record) -> record instanceof RoutedBlock block
                            && block.getChannel().equals(channel.id()),
                    Branched.withConsumer(blocks -> blocks
                            .mapValues(record -> (RoutedBlock) record, Named.as("as-" + channel.id() + "-block"))
                            .to(topic.name(), topic.produced()), channel.id()));
        }
        routed.noDefaultBranch();
    }

    private static <V extends SpecificRecord> void branch(BranchedKStream<String, SpecificRecord> routed,
                                                          Class<V> type, Topic<String, V> topic, String name) {
        routed.branch((key, record) -> type.isInstance(record), Branched.withConsumer(records -> records
                .mapValues(type::cast, Named.as("as-" + name))
                .to(topic.name(), topic.produced()), name));
    }

    private static final class Route implements Processor<String, LlmOutput, String, SpecificRecord> {
        /** A block's fields other than its text, generously. */
        private static final int BLOCK_FIELDS_BYTES = 4096;

        private final OutputRouter router;
        private final OutputLimits limits;
        private ProcessorContext<String, SpecificRecord> context;
        private KeyValueStore<String, Integer> streaks;

        Route(OutputRouter router, OutputLimits limits) {
            this.router = router;
            this.limits = limits;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            streaks = context.getStateStore(INTERRUPT_STORE);
        }

        @Override
        public void process(Record<String, LlmOutput> record) {
            LlmOutput output = record.value();
            OutputRouter.Routing routing = router.route(output);
            requireFits(routing);
            routing.blocks().forEach(block -> context.forward(record.withValue(block)));
            routing.toolCalls().forEach(call -> context.forward(record.withValue(call)));
            if (!routing.redactions().isEmpty()) {
                context.forward(record.withValue(redactionEvent(output, routing.redactions())));
            }
            String session = output.getSessionId();
            Integer stored = streaks.get(session);
            int streak = stored == null ? 0 : stored;
            for (Marker marker : routing.markers()) {
                int next = InterruptStreak.next(streak, marker);
                if (InterruptStreak.escalates(streak, next)) {
                    context.forward(record.withKey(COUNCIL_ID).withValue(escalation(output)));
                }
                streak = next;
            }
            streaks.put(session, streak);
        }

        /**
         * Checked before anything is forwarded: a block its channel's brokers would refuse (redaction tags can make
         * text longer) refuses the whole output, never a part of it.
         */
        private void requireFits(OutputRouter.Routing routing) {
            for (RoutedBlock block : routing.blocks()) {
                String topic = Topics.CHANNEL_PREFIX + block.getChannel();
                long bytes = Utf8.length(block.getText()) + BLOCK_FIELDS_BYTES;
                if (bytes > limits.maxValueBytes(topic)) {
                    throw new InvalidRecordException("block " + block.getSequence() + " would be " + bytes
                            + " bytes on " + topic + ", which takes " + limits.maxValueBytes(topic));
                }
            }
        }

        private static PipelineEvent redactionEvent(LlmOutput output, Map<String, Integer> counts) {
            Map<String, String> attributes = new java.util.TreeMap<>();
            counts.forEach((type, count) -> attributes.put(type, String.valueOf(count)));
            return PipelineEvent.newBuilder()
                    .setEventId(output.getOutputId() + "-redaction")
                    .setType(REDACTION_EVENT)
                    .setSeverity(Severity.INFO)
                    .setSessionId(output.getSessionId())
                    .setRequestId(output.getRequestId())
                    .setPacketId(output.getPacketId())
                    .setMessage("redacted " + counts.values().stream().mapToInt(Integer::intValue).sum()
                            + " entities before the channels")
                    .setAttributes(attributes)
                    .setTimestamp(output.getTimestamp())
                    .build();
        }

        private static CouncilMessage escalation(LlmOutput output) {
            return CouncilMessage.newBuilder()
                    .setMsgId(output.getOutputId() + "-interrupts")
                    .setParentId(output.getPacketId())
                    .setCouncilId(COUNCIL_ID)
                    .setTimestamp(output.getTimestamp())
                    .setSender(SENDER)
                    .setRole("observer")
                    .setType(CouncilMessageType.ESCALATION)
                    .setRiskLevel(RiskLevel.HIGH)
                    .setContent(InterruptStreak.ESCALATE_AT + " consecutive INTERRUPT blocks in session "
                            + output.getSessionId() + " (seed 003 section 8.4): Prime's attention needed")
                    .setSessionId(output.getSessionId())
                    .build();
        }
    }
}
