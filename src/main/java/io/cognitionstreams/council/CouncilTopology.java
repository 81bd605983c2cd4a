package io.cognitionstreams.council;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.governance.CouncilKeys;
import io.cognitionstreams.redaction.LastCheck;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.GlobalMirror;
import io.cognitionstreams.topology.Outputs;

/**
 * The council protocol: council.messages -> {@link Council} over changelogged stores -> role changes on
 * council.roles, decisions on council.decisions (those on the gatekeeper's proposals also on
 * council.decisions.by-session, keyed by the call's session), escalations (and clock ticks) on council.messages,
 * escalations on channel.council_chat, and each changed council's state on council.state (once a tick), the public
 * view of the stores for `cognition council` and monitoring. Every output of a message is written in the
 * transaction that commits the message and the state it changed (exactly_once_v2), so a restart neither loses nor
 * repeats a decision.
 */
public final class CouncilTopology {

    public static final String NAME = "council";
    public static final String CLOCK_STORE = "clock";
    public static final String ROLES_STORE = "roles";
    public static final String PROPOSALS_STORE = "proposals";
    public static final String PENDING_VOTES_STORE = "pending-votes";
    public static final String DECIDED_STORE = "decided";
    public static final String SEEN_STORE = "seen";
    /** What comes due when, in time order per council ({@link Deadline#indexKey}): the next one is one seek away. */
    public static final String DEADLINES_STORE = "deadlines";
    /** Open proposals and held votes per council, for the flood limits. */
    public static final String COUNTS_STORE = "council-counts";
    /** A global store: every task checks signatures against every role's key. */
    public static final String KEYS_STORE = "council-keys";

    private CouncilTopology() {
    }

    /**
     * @param redactor scrubs what the council shows on channel.council_chat
     * @param appKey   signs the council's ticks and escalations, and is the key the app's own senders sign with
     *                 (used only with signatures required)
     */
    public static void build(StreamsBuilder builder, Topics topics, CouncilSettings settings, Redactor redactor,
                             Ed25519.Key appKey) {
        // Persistent and changelogged: a restart or a rebalance restores the council where it was.
        addStore(builder, CLOCK_STORE, Serdes.Long());
        addStore(builder, ROLES_STORE, topics.serde(RoleStatus.class));
        addStore(builder, PROPOSALS_STORE, topics.serde(ProposalState.class));
        addStore(builder, PENDING_VOTES_STORE, topics.councilMessages.valueSerde());
        addStore(builder, DECIDED_STORE, topics.serde(CouncilDecision.class));
        addStore(builder, SEEN_STORE, Serdes.Long());
        addStore(builder, DEADLINES_STORE, Serdes.String());
        addStore(builder, COUNTS_STORE, Serdes.Long());
        // The roles' public keys: a bad record is skipped here and dead-lettered by governance, never a stop.
        GlobalMirror.add(builder, topics.councilKeys, KEYS_STORE, CouncilKeys::refuse);

        // Keyed by council id, so one task owns each council: its votes meet its proposals without a repartition.
        KStream<String, SpecificRecord> outputs = builder.stream(topics.councilMessages.name(),
                        topics.councilMessages.consumed())
                .process(() -> new CouncilProcessors.Deliberate(settings, new Council(settings, redactor,
                                topics.limits(), appKey)),
                        Named.as("deliberate"), CLOCK_STORE, ROLES_STORE, PROPOSALS_STORE, PENDING_VOTES_STORE,
                        DECIDED_STORE, SEEN_STORE, DEADLINES_STORE, COUNTS_STORE);
        // The decisions a gated call waits for, again, keyed by its session, in the same transaction: the gatekeeper
        // reads them in the task that holds the session's calls, with no repartition of its own (a transaction more
        // on every gated call's way).
        Outputs.of(outputs.filter((council, record) -> record instanceof CouncilDecision decision
                                && Council.awaitedByGatekeeper(decision), Named.as("awaited-by-gatekeeper"))
                        .selectKey((council, record) -> ((CouncilDecision) record).getSessionId(),
                                Named.as("by-session")), "council-by-session")
                .to(topics.councilDecisionsBySession)
                .end();
        Outputs.of(outputs, "council")
                .checkingChannelsWith(new LastCheck(redactor))
                .sealingCouncilMessagesWith(CouncilSignatures.seal(settings, appKey))
                .to(topics.councilRoles)
                .to(topics.councilDecisions)
                .to(topics.councilMessages)
                .to(topics.channel(Channel.COUNCIL_CHAT))
                .to(topics.councilState)
                .end();
    }

    /**
     * Cached: every heartbeat rewrites its role and the council's clock, and without a cache each write is a
     * changelog record; with it, a busy council writes each key once per commit.
     */
    private static <V> void addStore(StreamsBuilder builder, String name, Serde<V> values) {
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(),
                values).withCachingEnabled());
    }
}
