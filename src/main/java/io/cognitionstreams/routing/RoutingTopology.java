package io.cognitionstreams.routing;

import java.util.List;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.redaction.LastCheck;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.serde.Utf8;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.CouncilSeal;
import io.cognitionstreams.topology.EventSources;
import io.cognitionstreams.topology.Outputs;

/**
 * Marker routing: llm.outputs -> {@link OutputRouter} (parse, scrub, address) -> channel.* topics (a tenant's
 * sessions' chat blocks to the tenant's own, channel.<tenant>.*); EXECUTE blocks to tool.calls instead (only an
 * approved call reaches channel.shell, through the gatekeeper); what was redacted to cognition.events; three
 * INTERRUPTs in a row in a session to the council as one ESCALATION.
 */
public final class RoutingTopology {

    public static final String NAME = "routing";
    public static final String INTERRUPT_STORE = "interrupt-streaks";

    private RoutingTopology() {
    }

    /** @param seal what the app does to its escalations before council.messages (signs them when required) */
    public static void build(StreamsBuilder builder, Topics topics, OutputRouter router, CouncilSeal seal) {
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(INTERRUPT_STORE),
                Serdes.String(), Serdes.Integer()));
        // Outputs are keyed by session, so every block of a session stays in one partition and in order, and the
        // session's interrupt streak lives in the same task; nothing is repartitioned.
        Outputs outputs = Outputs.of(builder.stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .process(() -> new Route(router, topics), Named.as("parse-scrub-address"), INTERRUPT_STORE),
                "route")
                .checkingChannelsWith(new LastCheck(router.redactor()))
                .sealingCouncilMessagesWith(seal)
                .addressingChannelsWith(topics::channelTopicName)
                .to(topics.toolCalls)
                .to(topics.events)
                .to(topics.councilMessages);
        // One sink per tenant and channel rather than a topic-name extractor: every topic routing writes stays
        // visible in the topology's description (topology-docs/), and each has its own last check.
        for (Channel channel : Channel.values()) {
            if (channel != Channel.SHELL) {
                outputs.to(topics.channel(channel));
                if (channel.perTenant()) {
                    topics.tenants().forEach(tenant -> outputs.to(topics.channel(tenant, channel)));
                }
            }
        }
        outputs.end();
    }

    private static final class Route implements Processor<String, LlmOutput, String, SpecificRecord> {
        /** A block's fields other than its text, generously. */
        private static final int BLOCK_FIELDS_BYTES = 4096;

        private final OutputRouter router;
        private final Topics topics;
        private ProcessorContext<String, SpecificRecord> context;
        private InterruptStreak.Memory streaks;

        Route(OutputRouter router, Topics topics) {
            this.router = router;
            this.topics = topics;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            KeyValueStore<String, Integer> store = context.getStateStore(INTERRUPT_STORE);
            streaks = new InterruptStreak.Memory() {
                @Override
                public int streak(String session) {
                    Integer stored = store.get(session);
                    return stored == null ? 0 : stored;
                }

                @Override
                public void streak(String session, int streak) {
                    store.put(session, streak);
                }
            };
        }

        @Override
        public void process(Record<String, LlmOutput> record) {
            List<SpecificRecord> records = router.records(record.value(), streaks, EventSources.of(context));
            requireFits(records);
            for (SpecificRecord value : records) {
                // council.messages is keyed by council; everything else of the output by its session.
                String key = value instanceof CouncilMessage escalation ? escalation.getCouncilId() : record.key();
                context.forward(record.withKey(key).withValue(value));
            }
        }

        /**
         * Checked before anything is forwarded: a block its channel's brokers would refuse (redaction tags can make
         * text longer) refuses the whole output, never a part of it.
         */
        private void requireFits(List<SpecificRecord> records) {
            for (SpecificRecord value : records) {
                if (value instanceof RoutedBlock block) {
                    String topic = topics.channelTopicName(block);
                    long bytes = Utf8.length(block.getText()) + BLOCK_FIELDS_BYTES;
                    if (bytes > topics.limits().maxValueBytes(topic)) {
                        throw new InvalidRecordException("block " + block.getSequence() + " would be " + bytes
                                + " bytes on " + topic + ", which takes " + topics.limits().maxValueBytes(topic));
                    }
                }
            }
        }
    }
}
