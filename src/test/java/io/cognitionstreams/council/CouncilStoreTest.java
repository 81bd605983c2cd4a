package io.cognitionstreams.council;

import static io.cognitionstreams.council.Messages.COUNCIL;
import static io.cognitionstreams.council.Messages.at;
import static io.cognitionstreams.council.Messages.vote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.council.Deadline.Kind;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.topics.Topics;

/**
 * The council's deadline index and counts on real (in-memory) Kafka Streams stores: every change of roles, proposals
 * and held votes keeps them in step, so the next deadline is the first key of the council's range.
 */
class CouncilStoreTest {

    private static final CouncilSettings SETTINGS = CouncilSettings.defaults(); // 90 s heartbeats, 5 m proposals
    private static final Duration TTL = SETTINGS.proposalTtl();

    private final Topics topics = Drivers.topics();
    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private CouncilStore.Stores stores;
    private CouncilStore memory;

    @BeforeEach
    void stores() {
        stores = new CouncilStore.Stores(store(CouncilTopology.CLOCK_STORE, Serdes.Long()),
                store(CouncilTopology.ROLES_STORE, topics.serde(RoleStatus.class)),
                store(CouncilTopology.PROPOSALS_STORE, topics.serde(ProposalState.class)),
                store(CouncilTopology.PENDING_VOTES_STORE, topics.councilMessages.valueSerde()),
                store(CouncilTopology.DECIDED_STORE, topics.serde(CouncilDecision.class)),
                store(CouncilTopology.SEEN_STORE, Serdes.Long()),
                store(CouncilTopology.KEYS_STORE, topics.serde(CouncilKey.class)),
                store(CouncilTopology.DEADLINES_STORE, Serdes.String()),
                store(CouncilTopology.COUNTS_STORE, Serdes.Long()));
        memory = new CouncilStore(stores, SETTINGS);
    }

    @Test
    void aCouncilWithNothingOpenHasNoDeadline() {
        memory.clock(COUNCIL, at(0).toEpochMilli());
        assertThat(memory.nextDeadline(COUNCIL)).isEmpty();
        assertThat(memory.proposalCount(COUNCIL)).isZero();
        assertThat(memory.heldVoteCount(COUNCIL)).isZero();
    }

    @Test
    void theEarliestOpenProposalComesDueFirstAndClosingItUncoversTheNext() {
        memory.proposal(proposal("p-late", 20));
        memory.proposal(proposal("p-early", 10));
        memory.proposal(proposal("p-middle", 15));
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(10).plus(TTL), Kind.PROPOSAL, "p-early"));
        assertThat(memory.proposalCount(COUNCIL)).isEqualTo(3);

        // A vote rewrites the proposal: same deadline, still one entry.
        memory.proposal(ProposalState.newBuilder(proposal("p-early", 10)).setVotes(List.of()).build());
        assertThat(memory.proposalCount(COUNCIL)).isEqualTo(3);
        assertThat(indexed()).hasSize(3);

        memory.decide(decision("p-early"));
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(15).plus(TTL), Kind.PROPOSAL, "p-middle"));
        assertThat(memory.proposalCount(COUNCIL)).isEqualTo(2);
        memory.decide(decision("p-middle"));
        memory.decide(decision("p-late"));
        assertThat(memory.nextDeadline(COUNCIL)).isEmpty();
        assertThat(memory.proposalCount(COUNCIL)).isZero();
        assertThat(indexed()).isEmpty();

        // A proposal expired on arrival is decided without having been open: nothing to unindex or uncount.
        memory.decide(decision("never-open"));
        assertThat(memory.proposalCount(COUNCIL)).isZero();
    }

    @Test
    void eachHeartbeatMovesItsRolesDeadlineAndTimingOutRemovesIt() {
        memory.proposal(proposal("p1", 0)); // due at 300 s
        memory.role(role("prime", 0, RoleState.ACTIVE));
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(90), Kind.ROLE, "prime"));

        memory.role(role("prime", 60, RoleState.ACTIVE));
        memory.role(role("lite", 30, RoleState.ACTIVE));
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(120), Kind.ROLE, "lite"));
        assertThat(indexed()).as("the heartbeat at 0 s left no deadline behind").hasSize(3);

        memory.role(role("lite", 30, RoleState.INACTIVE));
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(150), Kind.ROLE, "prime"));
        memory.role(role("prime", 60, RoleState.INACTIVE));
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(300), Kind.PROPOSAL, "p1"));
        assertThat(memory.proposalCount(COUNCIL)).as("roles are not counted").isEqualTo(1);
    }

    @Test
    void aHeldVoteComesDueATimeToLiveAfterItWasCastAndLeavesWhenReleased() {
        memory.proposal(proposal("p-open", 100)); // due at 400 s
        CouncilMessage early = vote("p-unseen", "prime", Vote.YES, 30);
        CouncilMessage other = vote("p-unseen/x", "lite", Vote.NO, 40);
        memory.hold(early);
        memory.hold(other);
        assertThat(memory.heldVoteCount(COUNCIL)).isEqualTo(2);
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(30).plus(TTL), Kind.HELD_VOTE,
                "p-unseen/prime"));
        Deadline next = memory.nextDeadline(COUNCIL).orElseThrow();
        assertThat(next.proposalId()).isEqualTo("p-unseen");
        assertThat(next.role()).isEqualTo("prime");
        assertThat(memory.heldVotes(COUNCIL, "p-unseen")).as("not the votes of p-unseen/x").containsExactly(early);
        assertThat(memory.heldVotes(COUNCIL, "p-unseen/x")).containsExactly(other);

        memory.release(early);
        memory.release(early); // released twice: counted once
        assertThat(memory.heldVoteCount(COUNCIL)).isEqualTo(1);
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(40).plus(TTL), Kind.HELD_VOTE,
                "p-unseen/x/lite"));
        memory.release(other);
        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(400), Kind.PROPOSAL, "p-open"));
        assertThat(memory.heldVoteCount(COUNCIL)).isZero();
    }

    @Test
    void atTheSameTimeRolesComeFirstThenProposalsThenHeldVotesEachByIdAsTheCouncilFiresThem() {
        memory.hold(vote("p-x", "prime", Vote.YES, 0)); // due at 300 s
        memory.proposal(proposal("p-b", 0));
        memory.proposal(proposal("p-a", 0));
        memory.role(role("lite", 210, RoleState.ACTIVE)); // due at 300 s
        memory.role(role("codemind", 210, RoleState.ACTIVE));
        assertThat(indexed()).containsExactly(
                new Deadline(at(300), Kind.ROLE, "codemind"), new Deadline(at(300), Kind.ROLE, "lite"),
                new Deadline(at(300), Kind.PROPOSAL, "p-a"), new Deadline(at(300), Kind.PROPOSAL, "p-b"),
                new Deadline(at(300), Kind.HELD_VOTE, "p-x/prime"));
    }

    @Test
    void councilsKeepTheirOwnDeadlinesAndCounts() {
        memory.proposal(proposal("p1", 50));
        memory.proposal(ProposalState.newBuilder(proposal("p2", 10)).setCouncilId("default-2").build());
        assertThat(memory.nextDeadline(COUNCIL)).map(Deadline::id).contains("p1");
        assertThat(memory.nextDeadline("default-2")).map(Deadline::id).contains("p2");
        assertThat(memory.nextDeadline("defaul")).isEmpty();
        assertThat(memory.proposalCount(COUNCIL)).isEqualTo(1);
    }

    @Test
    void afterAnUpgradeTheIndexAndCountsAreRebuiltFromTheCouncilsStateOnce() {
        // State written before the index existed, and an index entry nothing backs.
        stores.clocks().put(COUNCIL, at(100).toEpochMilli());
        stores.roles().put(CouncilStore.key(COUNCIL, "prime"), role("prime", 100, RoleState.ACTIVE));
        stores.roles().put(CouncilStore.key(COUNCIL, "lite"), role("lite", 0, RoleState.INACTIVE));
        stores.proposals().put(CouncilStore.key(COUNCIL, "p1"), proposal("p1", 20));
        CouncilMessage vote = vote("p-unseen", "prime", Vote.NO, 10);
        stores.pendingVotes().put(CouncilStore.voteKey(COUNCIL, "p-unseen", "prime"), vote);
        Deadline stale = new Deadline(at(5), Kind.PROPOSAL, "gone");
        stores.deadlines().put(stale.indexKey(COUNCIL), stale.id());

        assertThat(memory.nextDeadline(COUNCIL)).contains(new Deadline(at(190), Kind.ROLE, "prime"));
        assertThat(indexed()).containsExactly(new Deadline(at(190), Kind.ROLE, "prime"),
                new Deadline(at(10).plus(TTL), Kind.HELD_VOTE, "p-unseen/prime"),
                new Deadline(at(20).plus(TTL), Kind.PROPOSAL, "p1"));
        assertThat(memory.proposalCount(COUNCIL)).isEqualTo(1);
        assertThat(memory.heldVoteCount(COUNCIL)).isEqualTo(1);

        // A task that starts again finds them in step, and leaves them so.
        CouncilStore again = new CouncilStore(stores, SETTINGS);
        assertThat(again.nextDeadline(COUNCIL)).contains(new Deadline(at(190), Kind.ROLE, "prime"));
        assertThat(again.proposalCount(COUNCIL)).isEqualTo(1);
    }

    @Test
    void anIndexKeyReadsBackAsItsDeadlineAndSortsAsTheCouncilFires() {
        Deadline vote = new Deadline(at(1), Kind.HELD_VOTE, "call-1/a/prime");
        assertThat(Deadline.ofIndexKey(COUNCIL, vote.indexKey(COUNCIL))).isEqualTo(vote);
        assertThat(vote.proposalId()).isEqualTo("call-1/a");
        assertThat(new Deadline(Instant.ofEpochMilli(999), Kind.ROLE, "z").indexKey("c"))
                .isLessThan(new Deadline(Instant.ofEpochMilli(1000), Kind.ROLE, "a").indexKey("c"));
        assertThatThrownBy(() -> Deadline.ofIndexKey("other", vote.indexKey(COUNCIL)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Deadline(at(0), Kind.ROLE, "prime").proposalId())
                .isInstanceOf(IllegalStateException.class);
    }

    private List<Deadline> indexed() {
        List<Deadline> all = new java.util.ArrayList<>();
        try (var entries = stores.deadlines().all()) {
            entries.forEachRemaining(entry -> all.add(Deadline.ofIndexKey(COUNCIL, entry.key)));
        }
        return all;
    }

    private static ProposalState proposal(String id, double seconds) {
        return ProposalState.newBuilder()
                .setProposalId(id)
                .setCouncilId(COUNCIL)
                .setProposer("gatekeeper")
                .setContent("Tool call waiting for approval")
                .setOpenedAt(at(seconds))
                .setDeadline(at(seconds).plus(TTL))
                .setVotes(List.of())
                .build();
    }

    private static RoleStatus role(String role, double lastHeartbeat, RoleState state) {
        return RoleStatus.newBuilder()
                .setCouncilId(COUNCIL)
                .setRole(role)
                .setStatus(state)
                .setLastHeartbeat(at(lastHeartbeat))
                .setTimestamp(at(lastHeartbeat))
                .build();
    }

    private static CouncilDecision decision(String proposal) {
        return CouncilDecision.newBuilder()
                .setProposalId(proposal)
                .setCouncilId(COUNCIL)
                .setOutcome(CouncilOutcome.APPROVED)
                .setYes(2).setNo(0).setAbstain(0)
                .setVoters(List.of("prime", "lite"))
                .setTieBrokenByPrime(false)
                .setReason("majority")
                .setTimestamp(at(1))
                .build();
    }

    private <V> KeyValueStore<String, V> store(String name, Serde<V> values) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
                Serdes.String(), values).withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }
}
