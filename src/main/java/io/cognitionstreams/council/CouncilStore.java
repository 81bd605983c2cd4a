package io.cognitionstreams.council;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RoleStatus;

/**
 * {@link CouncilMemory} in the council's stores; keys are council id + '/' + id (council ids hold no '/'). The
 * deadline index ({@link Deadline#indexKey}, the id as value) and the counts of open proposals and held votes are
 * stores of their own, changed with the entries they follow in the same exactly-once transaction.
 */
final class CouncilStore implements CouncilMemory {
    private static final StringSerializer KEYS = new StringSerializer();
    private static final String PROPOSAL_COUNT = "proposals";
    private static final String HELD_VOTE_COUNT = "held-votes";

    private final KeyValueStore<String, Long> clocks;
    private final KeyValueStore<String, RoleStatus> roles;
    private final KeyValueStore<String, ProposalState> proposals;
    private final KeyValueStore<String, CouncilMessage> pendingVotes;
    private final KeyValueStore<String, CouncilDecision> decided;
    private final KeyValueStore<String, Long> seen;
    private final ReadOnlyKeyValueStore<String, CouncilKey> keys;
    private final KeyValueStore<String, String> deadlines;
    private final KeyValueStore<String, Long> counts;
    private final RoleLiveness liveness;
    private final Duration proposalTtl;
    private boolean reconciled;

    /** The stores, by name, as {@link CouncilTopology} adds them. */
    record Stores(KeyValueStore<String, Long> clocks, KeyValueStore<String, RoleStatus> roles,
                  KeyValueStore<String, ProposalState> proposals, KeyValueStore<String, CouncilMessage> pendingVotes,
                  KeyValueStore<String, CouncilDecision> decided, KeyValueStore<String, Long> seen,
                  ReadOnlyKeyValueStore<String, CouncilKey> keys, KeyValueStore<String, String> deadlines,
                  KeyValueStore<String, Long> counts) {
    }

    CouncilStore(Stores stores, CouncilSettings settings) {
        this.clocks = stores.clocks();
        this.roles = stores.roles();
        this.proposals = stores.proposals();
        this.pendingVotes = stores.pendingVotes();
        this.decided = stores.decided();
        this.seen = stores.seen();
        this.keys = stores.keys();
        this.deadlines = stores.deadlines();
        this.counts = stores.counts();
        this.liveness = new RoleLiveness(settings.heartbeatTimeout());
        this.proposalTtl = settings.proposalTtl();
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
        String key = key(status.getCouncilId(), status.getRole());
        Optional<Deadline> before = Optional.ofNullable(roles.get(key)).flatMap(this::deadline);
        roles.put(key, status);
        reindex(status.getCouncilId(), before, deadline(status));
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
        String council = proposal.getCouncilId();
        String key = key(council, proposal.getProposalId());
        ProposalState before = proposals.get(key);
        proposals.put(key, proposal);
        reindex(council, Optional.ofNullable(before).map(Deadline::of), Optional.of(Deadline.of(proposal)));
        if (before == null) {
            count(council, PROPOSAL_COUNT, 1);
        }
    }

    @Override
    public int proposalCount(String council) {
        return count(council, PROPOSAL_COUNT);
    }

    @Override
    public Optional<CouncilDecision> decision(String council, String proposalId) {
        return Optional.ofNullable(decided.get(key(council, proposalId)));
    }

    @Override
    public void decide(CouncilDecision decision) {
        String council = decision.getCouncilId();
        String key = key(council, decision.getProposalId());
        ProposalState open = proposals.delete(key);
        if (open != null) {
            reindex(council, Optional.of(Deadline.of(open)), Optional.empty());
            count(council, PROPOSAL_COUNT, -1);
        }
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
    public List<CouncilMessage> heldVotes(String council, String proposalId) {
        // The prefix also takes the votes of a proposal whose id continues this one's after a '/'.
        return all(pendingVotes, key(council, proposalId)).stream()
                .filter(vote -> vote.getProposalId().equals(proposalId))
                .toList();
    }

    @Override
    public int heldVoteCount(String council) {
        return count(council, HELD_VOTE_COUNT);
    }

    @Override
    public void hold(CouncilMessage vote) {
        String council = vote.getCouncilId();
        CouncilMessage before = pendingVotes.get(voteKey(council, vote.getProposalId(), vote.getSender()));
        pendingVotes.put(voteKey(council, vote.getProposalId(), vote.getSender()), vote);
        reindex(council, Optional.ofNullable(before).map(this::deadline), Optional.of(deadline(vote)));
        if (before == null) {
            count(council, HELD_VOTE_COUNT, 1);
        }
    }

    @Override
    public void release(CouncilMessage vote) {
        String council = vote.getCouncilId();
        CouncilMessage held = pendingVotes.delete(voteKey(council, vote.getProposalId(), vote.getSender()));
        if (held != null) {
            reindex(council, Optional.of(deadline(held)), Optional.empty());
            count(council, HELD_VOTE_COUNT, -1);
        }
    }

    @Override
    public Optional<Deadline> nextDeadline(String council) {
        reconcileOnce();
        try (KeyValueIterator<String, String> due = deadlines.prefixScan(Deadline.indexPrefix(council), KEYS)) {
            return due.hasNext() ? Optional.of(Deadline.ofIndexKey(council, due.next().key)) : Optional.empty();
        }
    }

    private Optional<Deadline> deadline(RoleStatus role) {
        return Deadline.of(role, liveness);
    }

    private Deadline deadline(CouncilMessage heldVote) {
        return Deadline.ofHeld(heldVote, proposalTtl);
    }

    private void reindex(String council, Optional<Deadline> before, Optional<Deadline> after) {
        if (before.equals(after)) {
            return;
        }
        before.ifPresent(deadline -> deadlines.delete(deadline.indexKey(council)));
        after.ifPresent(deadline -> deadlines.put(deadline.indexKey(council), deadline.id()));
    }

    private int count(String council, String what) {
        reconcileOnce();
        Long count = counts.get(key(council, what));
        return count == null ? 0 : count.intValue();
    }

    private void count(String council, String what, int delta) {
        long after = count(council, what) + delta;
        if (after == 0) {
            counts.delete(key(council, what));
        } else {
            counts.put(key(council, what), after);
        }
    }

    /**
     * Brings the index and the counts in step with the entries once after the task starts: a store added by an
     * upgrade starts empty next to councils that already have state. Not in init: a cached store takes writes only
     * while a record or a punctuation is at hand. Costs a read of every council's state, as its first snapshot does.
     */
    private void reconcileOnce() {
        if (reconciled) {
            return;
        }
        reconciled = true;
        List<String> councils = new ArrayList<>();
        try (KeyValueIterator<String, Long> all = clocks.all()) {
            all.forEachRemaining(entry -> councils.add(entry.key));
        }
        councils.forEach(this::reconcile);
    }

    private void reconcile(String council) {
        Map<String, String> expected = new TreeMap<>();
        List<Deadline> due = new ArrayList<>();
        roles(council).forEach(role -> deadline(role).ifPresent(due::add));
        List<ProposalState> open = proposals(council);
        open.forEach(proposal -> due.add(Deadline.of(proposal)));
        List<CouncilMessage> held = heldVotes(council);
        held.forEach(vote -> due.add(deadline(vote)));
        due.forEach(deadline -> expected.put(deadline.indexKey(council), deadline.id()));
        List<String> stale = new ArrayList<>();
        try (KeyValueIterator<String, String> indexed = deadlines.prefixScan(Deadline.indexPrefix(council), KEYS)) {
            indexed.forEachRemaining(entry -> {
                if (expected.remove(entry.key) == null) {
                    stale.add(entry.key);
                }
            });
        }
        stale.forEach(deadlines::delete);
        expected.forEach(deadlines::put);
        recount(council, PROPOSAL_COUNT, open.size());
        recount(council, HELD_VOTE_COUNT, held.size());
    }

    private void recount(String council, String what, int actual) {
        Long stored = counts.get(key(council, what));
        if (actual == 0 && stored != null) {
            counts.delete(key(council, what));
        } else if (actual != 0 && (stored == null || stored != actual)) {
            counts.put(key(council, what), (long) actual);
        }
    }

    @Override
    public Optional<CouncilKey> roleKey(String role) {
        return Optional.ofNullable(keys.get(role));
    }

    @Override
    public Optional<Long> seen(String council, String msgId) {
        return Optional.ofNullable(seen.get(key(council, msgId)));
    }

    @Override
    public void seen(String council, String msgId, long timestamp) {
        seen.put(key(council, msgId), timestamp);
    }

    /** Forgets the msg_ids of messages stamped before {@code oldest}: the age check refuses their replays. */
    void forgetSeenBefore(long oldest) {
        List<String> old = new ArrayList<>();
        try (KeyValueIterator<String, Long> entries = seen.all()) {
            entries.forEachRemaining(entry -> {
                if (entry.value < oldest) {
                    old.add(entry.key);
                }
            });
        }
        old.forEach(seen::delete);
    }

    /** Forgets the decisions taken before {@code oldest}: late votes for them are then held, and dropped. */
    void forgetDecidedBefore(long oldest) {
        List<String> old = new ArrayList<>();
        try (KeyValueIterator<String, CouncilDecision> entries = decided.all()) {
            entries.forEachRemaining(entry -> {
                if (entry.value.getTimestamp().toEpochMilli() < oldest) {
                    old.add(entry.key);
                }
            });
        }
        old.forEach(decided::delete);
    }

    private static <V> List<V> all(KeyValueStore<String, V> store, String council) {
        List<V> values = new ArrayList<>();
        try (KeyValueIterator<String, V> entries = store.prefixScan(council + "/", KEYS)) {
            entries.forEachRemaining((KeyValue<String, V> entry) -> values.add(entry.value));
        }
        return values;
    }
}
