package io.cognitionstreams.gatekeeper;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.governance.ToolDescriptors;
import io.cognitionstreams.redaction.LastCheck;
import io.cognitionstreams.schema.PendingApproval;
import io.cognitionstreams.topology.CouncilSeal;
import io.cognitionstreams.topology.GlobalMirror;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.Outputs;
import io.cognitionstreams.topology.WindowStores;

/**
 * Gatekeeper filtering, wiring {@link GatekeeperSessions} to its topics and its store:
 * <ul>
 *   <li>tool.calls -> a decision against the active skill's permissions -> tool.decisions. An approval is signed
 *       ({@link DecisionSignatures}), so executors run nothing else. A denial carries the required permission and
 *       the skill's protocol, which the assembly puts in front of the model next (re-anchoring), and is answered at
 *       once on tool.results, since no executor will. An approved shell call also goes to channel.shell: the only
 *       way anything gets there.</li>
 *   <li>tool.outcomes -> a cognitive-load warning when the session has more active skills than the threshold ->
 *       tool.results.</li>
 *   <li>session.control -> forget a session's active skills (RESET_SKILLS) or the whole session (END_SESSION).</li>
 * </ul>
 * A session's state lives in the changelogged store {@value #ACTIVE_SKILLS_STORE}, so restarts and rebalances keep
 * it, and each change of it is also published on the compacted topic gatekeeper.sessions (a tombstone when the
 * session ends): the public view `cognition gatekeeper` and monitoring read. Every denial is also a
 * {@link DriftMetrics metric}.
 */
public final class GatekeeperTopology {

    public static final String NAME = "gatekeeper";
    public static final String ACTIVE_SKILLS_STORE = "active-skills";
    public static final String SKILLS_STORE = "skills";
    /**
     * Each session's tool results as its model saw them, by session and call id: what a replay answers with. A
     * window store, so results older than the retention are dropped with their segment, and its changelog is
     * deleted by time too; named apart from the key-value store it replaces, whose changelog it could not restore.
     */
    public static final String RESULTS_STORE = "recorded-tool-results";
    /** Calls waiting for their council, by session and proposal id ({@code PendingApproval}). */
    public static final String PENDING_STORE = "pending-approvals";
    /**
     * Each session's recent turns as of its latest packet ({@link RecentTurns}), for the proposals of its calls;
     * fed from cognition.packets unless --approval never.
     */
    public static final String TURNS_STORE = "recent-turns";
    /** What the executors say of each tool (cognition.tools): whether a call of it needs approval. */
    public static final String TOOLS_STORE = "tools";

    /** The stores of a session's state, which every processor of the session-keyed inputs reads and writes. */
    private static final String[] SESSION_STORES = {ACTIVE_SKILLS_STORE, RESULTS_STORE, PENDING_STORE, TURNS_STORE};

    private GatekeeperTopology() {
    }

    /**
     * @param redactor scrubs the command text of approved shell calls before channel.shell, which people read
     * @param signer   signs approvals; its public key is the one the council's decisions must be signed with
     * @param seal     what the proposals go through before council.messages (signed when the council requires it)
     */
    public static void build(StreamsBuilder builder, Topics topics, GatekeeperSettings settings, Redactor redactor,
                             DecisionSignatures.Signer signer, CouncilSeal seal) {
        GatekeeperSessions sessions = new GatekeeperSessions(settings, redactor, signer);
        SkillsStore.addGlobal(builder, topics, SKILLS_STORE);
        GlobalMirror.add(builder, topics.tools, TOOLS_STORE, ToolDescriptors::refuse);
        // Changelogged: a call waiting for its council survives restarts and rebalances, and is decided once.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(PENDING_STORE),
                Serdes.String(), topics.serde(PendingApproval.class)));
        // Changelogged, so a restart or a rebalance restores every session's active skills; cached, so a busy
        // session writes its changelog once per commit rather than once per call.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ACTIVE_SKILLS_STORE),
                Serdes.String(), topics.serde(GatekeeperSession.class)).withCachingEnabled());
        // Changelogged and cached: a session's packets rewrite it once per commit.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TURNS_STORE),
                Serdes.String(), Serdes.String()).withCachingEnabled());

        // Keyed <session>/<call id>, so a replayed call (same session) finds its original's result and END_SESSION
        // forgets a session's results with one key range; each kept under the stream time it was recorded at.
        builder.addStateStore(Stores.windowStoreBuilder(WindowStores.persistent(RESULTS_STORE,
                settings.resultsRetention(), settings.resultsRetention()), Serdes.String(),
                topics.serde(ToolResult.class)));

        // The inputs are keyed by session and share the stores, so they form one sub-topology whose task for
        // partition p owns the sessions of partition p on every topic: no repartition is needed.
        KStream<String, SpecificRecord> decided = builder
                .stream(topics.toolCalls.name(), topics.toolCalls.consumed())
                .process(() -> new GatekeeperProcessors.Decide(sessions, settings), Named.as("decide"), SESSION_STORES);
        KStream<String, SpecificRecord> results = builder
                .stream(topics.toolOutcomes.name(), topics.toolOutcomes.consumed())
                .process(() -> new GatekeeperProcessors.WarnOnOverload(sessions), Named.as("warn-on-overload"),
                        SESSION_STORES);
        // The council's decisions on the gatekeeper's proposals, keyed by session by the council itself:
        // co-partitioned with tool.calls (the app checks their partition counts), so each reaches its call's task.
        KStream<String, SpecificRecord> settled = builder
                .stream(topics.councilDecisionsBySession.name(), topics.councilDecisionsBySession.consumed())
                .process(() -> new GatekeeperProcessors.Settle(sessions, settings), Named.as("settle"),
                        SESSION_STORES);
        // Not through the split below: forgetting a session publishes a tombstone, which no type branch takes.
        builder.stream(topics.sessionControl.name(), topics.sessionControl.consumed())
                .process(() -> new GatekeeperProcessors.ControlSession(sessions), Named.as("control-session"),
                        SESSION_STORES)
                .to(topics.gatekeeperSessions.name(), topics.gatekeeperSessions.produced()
                        .withName("control-to-" + Topics.GATEKEEPER_SESSIONS));
        // The recent turns a proposal shows the council: read only by a gatekeeper that proposes.
        if (settings.approval() != ApprovalRule.Policy.NEVER) {
            builder.stream(topics.packets.name(), topics.packets.consumed())
                    .process(() -> new GatekeeperProcessors.RememberTurns(sessions), Named.as("remember-turns"),
                            SESSION_STORES);
        }

        Outputs.of(decided.merge(results, Named.as("gatekeeper-output")).merge(settled,
                        Named.as("gatekeeper-settled")), "out")
                .checkingChannelsWith(new LastCheck(redactor))
                .sealingCouncilMessagesWith(seal)
                .to(topics.toolDecisions)
                .to(topics.councilMessages)
                .to(topics.channel(Channel.SHELL))
                .to(topics.toolResults)
                .to(topics.events)
                .to(topics.gatekeeperSessions)
                .end();
    }
}
