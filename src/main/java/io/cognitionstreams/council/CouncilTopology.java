package io.cognitionstreams.council;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.redaction.Redaction;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * The council protocol: council.messages -> {@link Council} over changelogged stores -> role changes on
 * council.roles, decisions on council.decisions, escalations (and clock ticks) on council.messages and escalations
 * on channel.council_chat. Every output of a message is written in the transaction that commits the message and
 * the state it changed (exactly_once_v2), so a restart neither loses nor repeats a decision.
 */
public final class CouncilTopology {

    public static final String NAME = "council";
    public static final String CLOCK_STORE = "clock";
    public static final String ROLES_STORE = "roles";
    public static final String PROPOSALS_STORE = "proposals";
    public static final String PENDING_VOTES_STORE = "pending-votes";
    public static final String DECIDED_STORE = "decided";

    private CouncilTopology() {
    }

    /** The changelog topic of a council store, for readers outside the app such as {@code cognition council}. */
    public static String changelog(String applicationId, String store) {
        return applicationId + "-" + NAME + "-" + store + "-changelog";
    }

    /**
     * @param redactor scrubs what the council shows on channel.council_chat: an escalation quotes messages that can
     *                 carry anything a model or a person wrote
     */
    public static void build(StreamsBuilder builder, Topics topics, CouncilSettings settings, Redactor redactor) {
        // Persistent and changelogged: a restart or a rebalance restores the council where it was.
        addStore(builder, CLOCK_STORE, Serdes.Long());
        addStore(builder, ROLES_STORE, topics.serde(RoleStatus.class));
        addStore(builder, PROPOSALS_STORE, topics.serde(ProposalState.class));
        addStore(builder, PENDING_VOTES_STORE, topics.councilMessages.valueSerde());
        addStore(builder, DECIDED_STORE, topics.serde(CouncilDecision.class));

        // Keyed by council id, so one task owns each council: its votes meet its proposals without a repartition.
        BranchedKStream<String, SpecificRecord> out = builder
                .stream(topics.councilMessages.name(), topics.councilMessages.consumed())
                .process(() -> new Deliberate(settings, topics.limits()), Named.as("deliberate"), CLOCK_STORE,
                        ROLES_STORE, PROPOSALS_STORE, PENDING_VOTES_STORE, DECIDED_STORE)
                .split(Named.as("council-"));
        branch(out, RoleStatus.class, topics.councilRoles, "role");
        branch(out, CouncilDecision.class, topics.councilDecisions, "decision");
        branch(out, CouncilMessage.class, topics.councilMessages, "message");
        Topic<String, RoutedBlock> chat = topics.channel(Channel.COUNCIL_CHAT);
        out.branch((council, record) -> record instanceof RoutedBlock, Branched.withConsumer(blocks -> blocks
                .mapValues(record -> scrub((RoutedBlock) record, redactor), Named.as("scrub-chat"))
                .to(chat.name(), chat.produced()), "chat"));
        out.noDefaultBranch();
    }

    private static RoutedBlock scrub(RoutedBlock block, Redactor redactor) {
        Redaction scrubbed = redactor.redact(block.getText());
        return RoutedBlock.newBuilder(block).setText(scrubbed.text()).setRedactions(scrubbed.counts()).build();
    }

    /**
     * Cached: every heartbeat rewrites its role and the council's clock, and without a cache each write is a
     * changelog record; with it, a busy council writes each key once per commit.
     */
    private static <V> void addStore(StreamsBuilder builder, String name, Serde<V> values) {
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(),
                values).withCachingEnabled());
    }

    private static <V extends SpecificRecord> void branch(BranchedKStream<String, SpecificRecord> out, Class<V> type,
                                                          Topic<String, V> topic, String name) {
        out.branch((council, record) -> type.isInstance(record), Branched.withConsumer(records -> records
                .mapValues(type::cast, Named.as("as-" + name))
                .to(topic.name(), topic.produced()), name));
    }

    /** Validates each message, lets the council handle it, and checks the wall clock for deadlines in between. */
    private static final class Deliberate implements Processor<String, CouncilMessage, String, SpecificRecord> {
        /** Where a message's timestamp goes: the council stamps what a message leads to with the message's time. */
        private static final List<String> OUTPUTS = List.of(Topics.COUNCIL_ROLES, Topics.COUNCIL_DECISIONS,
                Topics.COUNCIL_MESSAGES, Topics.channelTopic(Channel.COUNCIL_CHAT));

        private final CouncilSettings settings;
        private final OutputLimits limits;
        private final Council council;
        private ProcessorContext<String, SpecificRecord> context;
        private StoreMemory memory;
        private KeyValueStore<String, Long> clocks;

        Deliberate(CouncilSettings settings, OutputLimits limits) {
            this.settings = settings;
            this.limits = limits;
            this.council = new Council(settings);
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            clocks = context.getStateStore(CLOCK_STORE);
            memory = new StoreMemory(clocks, context.getStateStore(ROLES_STORE),
                    context.getStateStore(PROPOSALS_STORE), context.getStateStore(PENDING_VOTES_STORE),
                    context.getStateStore(DECIDED_STORE));
            if (!settings.tick().isZero()) {
                context.schedule(settings.tick(), PunctuationType.WALL_CLOCK_TIME, this::checkWallClock);
            }
        }

        @Override
        public void process(Record<String, CouncilMessage> record) {
            long now = context.currentSystemTimeMs();
            CouncilMessage message = CouncilEnvelope.requireValid(record.key(), record.value(), settings,
                    Instant.ofEpochMilli(now));
            for (String topic : OUTPUTS) {
                limits.refuseTimestamp(topic, message.getTimestamp().toEpochMilli(), now).ifPresent(reason -> {
                    throw new InvalidRecordException("the brokers would refuse what this message leads to: " + reason);
                });
            }
            Council.Result result = council.handle(memory, message);
            result.outputs().forEach(this::forward);
            // Dead-lettered by DeadLetterHandler, in the same transaction as the outputs above.
            result.refusal().ifPresent(reason -> {
                throw new InvalidRecordException(reason);
            });
        }

        /** Writes a tick for each council on this task with a deadline past on the wall clock but not on its own. */
        private void checkWallClock(long wallClock) {
            List<Council.Output> ticks = new ArrayList<>();
            try (KeyValueIterator<String, Long> councils = clocks.all()) {
                councils.forEachRemaining(entry -> council.tick(memory, entry.key, Instant.ofEpochMilli(wallClock))
                        .ifPresent(ticks::add));
            }
            ticks.forEach(this::forward);
        }

        private void forward(Council.Output output) {
            context.forward(new Record<>(output.key(), output.value(), output.timestamp().toEpochMilli()));
        }
    }

    /** {@link CouncilMemory} in the council's stores; keys are council id + '/' + id (council ids hold no '/'). */
    static final class StoreMemory implements CouncilMemory {
        private static final StringSerializer KEYS = new StringSerializer();

        private final KeyValueStore<String, Long> clocks;
        private final KeyValueStore<String, RoleStatus> roles;
        private final KeyValueStore<String, ProposalState> proposals;
        private final KeyValueStore<String, CouncilMessage> pendingVotes;
        private final KeyValueStore<String, CouncilDecision> decided;

        StoreMemory(KeyValueStore<String, Long> clocks, KeyValueStore<String, RoleStatus> roles,
                    KeyValueStore<String, ProposalState> proposals,
                    KeyValueStore<String, CouncilMessage> pendingVotes,
                    KeyValueStore<String, CouncilDecision> decided) {
            this.clocks = clocks;
            this.roles = roles;
            this.proposals = proposals;
            this.pendingVotes = pendingVotes;
            this.decided = decided;
        }

        static String key(String council, String id) {
            return council + "/" + id;
        }

        /** A held vote's key: one per role and proposal, so the first vote is the one kept. */
        static String voteKey(String council, String proposalId, String role) {
            return key(council, proposalId) + "/" + role;
        }

        @Override
        public Optional<Long> clock(String council) {
            return Optional.ofNullable(clocks.get(council));
        }

        @Override
        public void clock(String council, long time) {
            clocks.put(council, time);
        }

        @Override
        public Optional<RoleStatus> role(String council, String role) {
            return Optional.ofNullable(roles.get(key(council, role)));
        }

        @Override
        public List<RoleStatus> roles(String council) {
            return all(roles, council);
        }

        @Override
        public void role(RoleStatus status) {
            roles.put(key(status.getCouncilId(), status.getRole()), status);
        }

        @Override
        public Optional<ProposalState> proposal(String council, String proposalId) {
            return Optional.ofNullable(proposals.get(key(council, proposalId)));
        }

        @Override
        public List<ProposalState> proposals(String council) {
            return all(proposals, council);
        }

        @Override
        public void proposal(ProposalState proposal) {
            proposals.put(key(proposal.getCouncilId(), proposal.getProposalId()), proposal);
        }

        @Override
        public Optional<CouncilDecision> decision(String council, String proposalId) {
            return Optional.ofNullable(decided.get(key(council, proposalId)));
        }

        @Override
        public void decide(CouncilDecision decision) {
            String key = key(decision.getCouncilId(), decision.getProposalId());
            proposals.delete(key);
            decided.put(key, decision);
        }

        @Override
        public Optional<CouncilMessage> heldVote(String council, String proposalId, String role) {
            return Optional.ofNullable(pendingVotes.get(voteKey(council, proposalId, role)));
        }

        @Override
        public List<CouncilMessage> heldVotes(String council) {
            return all(pendingVotes, council);
        }

        @Override
        public void hold(CouncilMessage vote) {
            pendingVotes.put(voteKey(vote.getCouncilId(), vote.getProposalId(), vote.getSender()), vote);
        }

        @Override
        public void release(CouncilMessage vote) {
            pendingVotes.delete(voteKey(vote.getCouncilId(), vote.getProposalId(), vote.getSender()));
        }

        private static <V> List<V> all(KeyValueStore<String, V> store, String council) {
            List<V> values = new ArrayList<>();
            try (KeyValueIterator<String, V> entries = store.prefixScan(council + "/", KEYS)) {
                entries.forEachRemaining((KeyValue<String, V> entry) -> values.add(entry.value));
            }
            return values;
        }
    }
}
