package io.cognitionstreams.council;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

/** {@link CouncilMemory} in the council's stores; keys are council id + '/' + id (council ids hold no '/'). */
final class CouncilStore implements CouncilMemory {
    private static final StringSerializer KEYS = new StringSerializer();

    private final KeyValueStore<String, Long> clocks;
    private final KeyValueStore<String, RoleStatus> roles;
    private final KeyValueStore<String, ProposalState> proposals;
    private final KeyValueStore<String, CouncilMessage> pendingVotes;
    private final KeyValueStore<String, CouncilDecision> decided;
    private final KeyValueStore<String, Long> seen;
    private final ReadOnlyKeyValueStore<String, CouncilKey> keys;

    CouncilStore(KeyValueStore<String, Long> clocks, KeyValueStore<String, RoleStatus> roles,
                KeyValueStore<String, ProposalState> proposals,
                KeyValueStore<String, CouncilMessage> pendingVotes,
                KeyValueStore<String, CouncilDecision> decided, KeyValueStore<String, Long> seen,
                ReadOnlyKeyValueStore<String, CouncilKey> keys) {
        this.seen = seen;
        this.keys = keys;
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
