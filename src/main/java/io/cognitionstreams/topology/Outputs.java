package io.cognitionstreams.topology;

import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.telemetry.Meters;
import io.cognitionstreams.telemetry.Tracing;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Sends what a processor forwards to the topics that take it: each topic takes one record type, and a routed
 * block goes to its channel's topic, or the one {@link #addressingChannelsWith} picks. Every topology ends in one
 * of these, so a new output is one more {@link #to} and nothing else. A record no topic takes fails loudly
 * ({@code noDefaultBranch}): it is a bug, not data. One branch and sink per topic keeps every topic a topology
 * writes visible in {@code Topology.describe()}, which topology-docs/ draws and TopologyDocsTest checks.
 *
 * <p>A channel topic (people and other systems read it) takes its blocks only through the {@link ChannelCheck}, so a
 * topology that writes a channel cannot be built without naming its check ({@link #checkingChannelsWith}); and
 * council.messages takes the app's messages only through its {@link CouncilSeal} ({@link #sealingCouncilMessagesWith}).
 */
public final class Outputs {

    private final String name;
    private final BranchedKStream<String, SpecificRecord> split;
    private ChannelCheck lastCheck;
    private CouncilSeal seal;
    private Function<RoutedBlock, String> channelTopics = block -> Topics.CHANNEL_PREFIX + block.getChannel();

    private Outputs(String name, BranchedKStream<String, SpecificRecord> split) {
        this.name = name;
        this.split = split;
    }

    /** @param name prefix of the split's processor names, unique within the topology */
    public static Outputs of(KStream<String, SpecificRecord> records, String name) {
        return new Outputs(name, records.split(Named.as(name + "-")));
    }

    /** The check every channel record of this split passes just before its topic. */
    public Outputs checkingChannelsWith(ChannelCheck check) {
        this.lastCheck = check;
        return this;
    }

    /**
     * Which topic takes each routed block of this split: its channel's shared topic unless set here (marker routing
     * sends a tenant's sessions to the tenant's own channel topics, {@link Topics#channelTopicName}).
     */
    public Outputs addressingChannelsWith(Function<RoutedBlock, String> topicOfBlock) {
        this.channelTopics = topicOfBlock;
        return this;
    }

    /** What every council message of this split goes through just before council.messages. */
    public Outputs sealingCouncilMessagesWith(CouncilSeal seal) {
        this.seal = seal;
        return this;
    }

    public <V extends SpecificRecord> Outputs to(Topic<String, V> topic) {
        return to(topic, topic.produced());
    }

    /**
     * With a partitioner or other producer settings of the caller's. The sink is named after this split, so that two
     * splits of one topology may write the same topic.
     */
    public <V extends SpecificRecord> Outputs to(Topic<String, V> topic, Produced<String, V> produced) {
        Class<V> type = topic.valueType();
        ChannelCheck check = RoutedBlock.class.equals(type) ? requireLastCheck(topic) : null;
        CouncilSeal councilSeal = CouncilMessage.class.equals(type) ? requireSeal(topic) : null;
        split.branch((key, record) -> takes(topic, record), Branched.withConsumer(records -> {
            KStream<String, SpecificRecord> last = records;
            if (check != null) {
                last = last.processValues(() -> new LastCheckProcessor(check, topic.name()),
                        Named.as(name + "-last-check-" + topic.name()));
            }
            if (councilSeal != null) {
                last = last.mapValues(record -> councilSeal.seal((CouncilMessage) record),
                        Named.as(name + "-seal-" + topic.name()));
            }
            last.processValues(() -> new Counted<>(type, topic.name()), Named.as(name + "-as-" + topic.name()))
                    .to(topic.name(), produced.withName(name + "-to-" + topic.name()));
        }, topic.name()));
        return this;
    }

    /**
     * Records of {@code type} go on through {@code rest} rather than to a topic of their own (an internal
     * repartition within the topology).
     */
    public <V extends SpecificRecord> Outputs then(Class<V> type, String branch, Consumer<KStream<String, V>> rest) {
        split.branch((key, record) -> type.isInstance(record), Branched.withConsumer(records -> rest.accept(
                records.mapValues(record -> type.cast(record), Named.as(name + "-as-" + branch))), branch));
        return this;
    }

    private ChannelCheck requireLastCheck(Topic<String, ?> channel) {
        if (lastCheck == null) {
            throw new IllegalStateException(name + " writes " + channel.name()
                    + " without a last check: call checkingChannelsWith(check) first");
        }
        return lastCheck;
    }

    private CouncilSeal requireSeal(Topic<String, ?> councilMessages) {
        if (seal == null) {
            throw new IllegalStateException(name + " writes " + councilMessages.name()
                    + " without a seal: call sealingCouncilMessagesWith(seal) first");
        }
        return seal;
    }

    /** No more topics: what none took is an error. */
    public void end() {
        split.noDefaultBranch();
    }

    /**
     * Casts each record to its topic's type, counts it ({@link Meters#written}) and puts the trace context of the
     * work that made it in its headers ({@link Tracing#writing}) as it goes out.
     */
    private static final class Counted<V> implements FixedKeyProcessor<String, SpecificRecord, V> {
        private final Class<V> type;
        private final String topic;
        private FixedKeyProcessorContext<String, V> context;

        Counted(Class<V> type, String topic) {
            this.type = type;
            this.topic = topic;
        }

        @Override
        public void init(FixedKeyProcessorContext<String, V> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<String, SpecificRecord> record) {
            Meters.written(context.applicationId(), topic, record.value());
            Tracing.writing(record.headers(), record.value());
            context.forward(record.withValue(type.cast(record.value())));
        }
    }

    private boolean takes(Topic<String, ?> topic, SpecificRecord record) {
        if (!topic.valueType().isInstance(record)) {
            return false;
        }
        return !(record instanceof RoutedBlock block) || topic.name().equals(channelTopics.apply(block));
    }
}
