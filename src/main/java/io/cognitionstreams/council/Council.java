package io.cognitionstreams.council;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.redaction.Redaction;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CastVote;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.CouncilState;
import io.cognitionstreams.schema.ProposalState;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topics;

/**
 * The council protocol of seed 003 section 8 over a {@link CouncilMemory}: role liveness, proposals and votes, and
 * escalations. Its only clock is the timestamps of the messages it handles (docs/council.md, "Time"): before a
 * message is applied, every deadline the council's clock passes on the way to the message's timestamp fires, in
 * time order. The same messages in the same order therefore give the same outputs, live or replayed.
 */
public final class Council {

    /** A record to write: its key (council id, or session id on a channel) and its timestamp. */
    public record Output(String key, SpecificRecord value, Instant timestamp) {
    }

    /**
     * What one message led to. A refusal is a rule the message broke against the council's state (a second vote, a
     * vote from an inactive role, a proposal id used twice): the outputs still stand, because the clock moved.
     */
    public record Result(List<Output> outputs, Optional<String> refusal) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(Council.class);

    /** Where a message's timestamp goes: the council stamps what a message leads to with the message's time. */
    private static final List<String> OUTPUTS = List.of(Topics.COUNCIL_ROLES, Topics.COUNCIL_DECISIONS,
            Topics.COUNCIL_MESSAGES, Topics.channelTopic(Channel.COUNCIL_CHAT));

    private final CouncilSettings settings;
    private final Redactor redactor;
    private final OutputLimits limits;
    private final Ed25519.Key appKey;
    private final RoleLiveness liveness;
    private final ProposalTally tally;

    /**
     * @param redactor scrubs what the council shows on channel.council_chat: an escalation quotes messages that can
     *                 carry anything a model or a person wrote
     * @param limits   the timestamps the brokers take on the council's topics
     * @param appKey   the app's key: it signs the council's ticks and escalations, and with signatures required it
     *                 is the only key the app's own senders may sign with
     */
    public Council(CouncilSettings settings, Redactor redactor, OutputLimits limits, Ed25519.Key appKey) {
        this.settings = settings;
        this.appKey = appKey;
        this.redactor = redactor;
        this.limits = limits;
        this.liveness = new RoleLiveness(settings.heartbeatTimeout());
        this.tally = new ProposalTally(settings);
    }

    /**
     * Handles one record of council.messages, keyed {@code key}, read when the wall clock says {@code now}.
     *
     * @throws InvalidRecordException when the envelope breaks a rule (docs/council.md) or carries a time the
     *                                brokers would refuse on what it leads to: nothing changes then
     */
    public Result handle(CouncilMemory memory, String key, CouncilMessage message, Instant now) {
        CouncilEnvelope.requireValid(key, message, settings, now);
        for (String topic : OUTPUTS) {
            limits.refuseTimestamp(topic, message.getTimestamp().toEpochMilli(), now.toEpochMilli())
                    .ifPresent(reason -> {
                        throw new InvalidRecordException("the brokers would refuse what this message leads to: "
                                + reason);
                    });
        }
        if (settings.signatures() == CouncilSettings.Signatures.REQUIRED) {
            requireAuthentic(memory, message, now);
        }
        return handle(memory, message);
    }

    /**
     * Signed by the key its sender must sign with, not older than the replay window, and not taken in before: a
     * stranger can neither speak for a role nor send a role's own message again. The msg_id is remembered here.
     */
    private void requireAuthentic(CouncilMemory memory, CouncilMessage message, Instant now) {
        String sender = message.getSender();
        CouncilSignatures.problem(message, appKey.publicKey(),
                        CouncilSettings.isReserved(sender) ? Optional.empty() : memory.roleKey(sender))
                .ifPresent(problem -> {
                    throw new InvalidRecordException(problem);
                });
        Instant oldest = now.minus(settings.maxMessageAge());
        if (message.getTimestamp().isBefore(oldest)) {
            throw new InvalidRecordException("timestamp " + message.getTimestamp() + " is "
                    + Duration.between(message.getTimestamp(), now) + " behind the clock (" + now + "), more than "
                    + "the " + settings.maxMessageAge() + " allowed (--council-max-message-age): a signed message "
                    + "is accepted only while its msg_id is remembered, so an old one may be a replay");
        }
        String council = message.getCouncilId();
        Optional<Long> before = memory.seen(council, message.getMsgId())
                .filter(at -> !Instant.ofEpochMilli(at).isBefore(oldest));
        if (before.isPresent()) {
            throw new InvalidRecordException("msg_id " + message.getMsgId() + " was already taken in by council "
                    + council + " (a message stamped " + Instant.ofEpochMilli(before.get()) + "): a replay, or a "
                    + "sender reusing an id; every message needs a new msg_id");
        }
        memory.seen(council, message.getMsgId(), message.getTimestamp().toEpochMilli());
    }

    private Result handle(CouncilMemory memory, CouncilMessage message) {
        List<Output> out = new ArrayList<>();
        Instant clock = advance(memory, message.getCouncilId(), message.getTimestamp(), out);
        if (message.getType() == CouncilMessageType.ESCALATION) {
            // Shown for Prime, never escalated again. The council's own were shown when it raised them.
            if (!message.getSender().equals(CouncilSettings.COUNCIL_SENDER)) {
                show(message, out);
            }
            return new Result(out, Optional.empty());
        }
        Escalations.trigger(message).ifPresent(reason ->
                escalate(Escalations.raise(message, reason, message.getTimestamp()), out));
        Optional<String> refusal = switch (message.getType()) {
            case HEARTBEAT -> heartbeat(memory, message, clock, out);
            case PROPOSAL -> propose(memory, message, clock, out);
            case VOTE -> vote(memory, message, clock, out);
            case INFO, ESCALATION -> Optional.empty();
        };
        return new Result(out, refusal);
    }

    /** What the council knows of {@code council} now, for council.state; {@code now} is when it is written. */
    public CouncilState snapshot(CouncilMemory memory, String council, Instant now) {
        return CouncilState.newBuilder()
                .setCouncilId(council)
                .setClock(memory.clock(council).map(Instant::ofEpochMilli).orElse(null))
                .setRoles(memory.roles(council))
                .setProposals(memory.proposals(council))
                .setHeldVotes(memory.heldVotes(council))
                .setTimestamp(now)
                .build();
    }

    /**
     * The tick to write to council.messages when the wall clock has passed a deadline of this council that no
     * message has brought its clock to. Handling the tick (a HEARTBEAT from the council itself) fires the deadline;
     * because the tick goes through the topic, it is in the log a replay reads.
     */
    public Optional<Output> tick(CouncilMemory memory, String council, Instant wallClock) {
        Optional<Due> next = nextDue(memory, council);
        if (next.isEmpty() || !wallClock.isAfter(next.get().at())) {
            return Optional.empty();
        }
        CouncilMessage tick = CouncilMessage.newBuilder()
                .setMsgId("tick-" + wallClock.toEpochMilli())
                .setCouncilId(council)
                .setTimestamp(wallClock)
                .setSender(CouncilSettings.COUNCIL_SENDER)
                .setRole("clock")
                .setType(CouncilMessageType.HEARTBEAT)
                .setRiskLevel(RiskLevel.LOW)
                .build();
        return Optional.of(new Output(council, tick, wallClock));
    }

    /** Moves the council's clock to {@code to}, first firing every deadline it passes, earliest first. */
    private Instant advance(CouncilMemory memory, String council, Instant to, List<Output> out) {
        Optional<Due> due;
        while ((due = nextDue(memory, council).filter(next -> to.isAfter(next.at()))).isPresent()) {
            due.get().fire().accept(out);
        }
        long clock = Math.max(memory.clock(council).orElse(Long.MIN_VALUE), to.toEpochMilli());
        memory.clock(council, clock);
        return Instant.ofEpochMilli(clock);
    }

    /** What fires at the council's earliest deadline, which its memory finds by index, not by a scan. */
    private record Due(Instant at, Consumer<List<Output>> fire) {
    }

    private Optional<Due> nextDue(CouncilMemory memory, String council) {
        return memory.nextDeadline(council).map(deadline -> new Due(deadline.at(), switch (deadline.kind()) {
            case ROLE -> {
                RoleStatus role = indexed(memory.role(council, deadline.id()), deadline);
                yield out -> {
                    RoleStatus inactive = liveness.timedOut(role);
                    memory.role(inactive);
                    out.add(new Output(council, inactive, inactive.getTimestamp()));
                    settleAll(memory, council, deadline.at(), out);
                };
            }
            case PROPOSAL -> {
                ProposalState proposal = indexed(memory.proposal(council, deadline.id()), deadline);
                yield out -> close(memory, proposal, tally.expire(proposal, active(memory, council)), out);
            }
            case HELD_VOTE -> {
                CouncilMessage vote = indexed(memory.heldVote(council, deadline.proposalId(), deadline.role()),
                        deadline);
                yield out -> {
                    memory.release(vote);
                    LOG.warn("council {}: dropped vote {} of {} on proposal {}: no such proposal arrived within {}",
                            council, vote.getMsgId(), vote.getSender(), vote.getProposalId(),
                            settings.proposalTtl());
                };
            }
        }));
    }

    /** The entry a deadline names: the memory keeps its index in step, so one is always there. */
    private static <T> T indexed(Optional<T> entry, Deadline deadline) {
        return entry.orElseThrow(() -> new IllegalStateException("the council's deadline index names " + deadline
                + ", which its memory does not hold"));
    }

    private Optional<String> heartbeat(CouncilMemory memory, CouncilMessage message, Instant clock,
                                       List<Output> out) {
        if (message.getSender().equals(CouncilSettings.COUNCIL_SENDER)) {
            return Optional.empty(); // a clock tick: moving the clock was all it was for
        }
        String council = message.getCouncilId();
        Optional<RoleStatus> before = memory.role(council, message.getSender());
        RoleStatus after = liveness.heartbeat(before, council, message.getSender(), message.getTimestamp(), clock);
        memory.role(after);
        // A heartbeat can only revive a role. That never decides an open proposal: more active roles need at
        // least as many votes.
        if (RoleLiveness.stateOf(before) != after.getStatus()) {
            out.add(new Output(council, after, after.getTimestamp()));
        }
        return Optional.empty();
    }

    private Optional<String> propose(CouncilMemory memory, CouncilMessage message, Instant clock,
                                     List<Output> out) {
        String council = message.getCouncilId();
        String id = message.getMsgId();
        if (memory.proposal(council, id).isPresent() || memory.decision(council, id).isPresent()) {
            return Optional.of("proposal " + id + " was already made in council " + council
                    + ": a proposal's msg_id is its id and must be unique");
        }
        if (memory.proposalCount(council) >= CouncilSettings.MAX_OPEN) {
            return Optional.of("council " + council + " already has " + CouncilSettings.MAX_OPEN + " open proposals, "
                    + "its limit: proposal " + id + " from " + message.getSender() + " is refused (a flood of "
                    + "proposals cannot grow a council's state)");
        }
        ProposalState proposal = ProposalState.newBuilder()
                .setProposalId(id)
                .setCouncilId(council)
                .setProposer(message.getSender())
                .setSessionId(message.getSessionId())
                .setContent(message.getContent())
                .setOpenedAt(message.getTimestamp())
                .setDeadline(message.getTimestamp().plus(settings.proposalTtl()))
                .setVotes(List.of())
                .build();
        // Votes that came first count as if they had arrived just after the proposal, in the order they were cast.
        List<CouncilMessage> held = memory.heldVotes(council, id).stream()
                .sorted(Comparator.comparing(CouncilMessage::getTimestamp).thenComparing(CouncilMessage::getMsgId))
                .toList();
        held.forEach(memory::release);
        if (clock.isAfter(proposal.getDeadline())) {
            close(memory, proposal, tally.expiredOnArrival(proposal, clock), out);
            return Optional.empty();
        }
        memory.proposal(proposal);
        boolean decided = settle(memory, proposal, clock, out);
        for (int i = 0; i < held.size() && !decided; i++) {
            proposal = counted(proposal, held.get(i));
            memory.proposal(proposal);
            decided = settle(memory, proposal, clock, out);
        }
        return Optional.empty();
    }

    private Optional<String> vote(CouncilMemory memory, CouncilMessage message, Instant clock, List<Output> out) {
        String council = message.getCouncilId();
        String id = message.getProposalId();
        String role = message.getSender();
        if (memory.decision(council, id).isPresent()) {
            return Optional.empty(); // late: the proposal is decided, and a decision is never taken twice
        }
        Optional<RoleStatus> status = memory.role(council, role);
        if (RoleLiveness.stateOf(status) != RoleState.ACTIVE) {
            return Optional.of("role " + role + " is inactive (" + status.map(s -> "last heartbeat "
                    + s.getLastHeartbeat()).orElse("never heard from") + "), so its vote on " + id
                    + " does not count: a role votes again after its next heartbeat");
        }
        Optional<ProposalState> open = memory.proposal(council, id);
        if (open.isEmpty()) {
            Optional<CouncilMessage> first = memory.heldVote(council, id, role);
            if (first.isPresent()) {
                return Optional.of(secondVote(role, id, first.get().getVote().toString(), first.get().getMsgId()));
            }
            if (memory.heldVoteCount(council) >= CouncilSettings.MAX_OPEN) {
                return Optional.of("council " + council + " already holds " + CouncilSettings.MAX_OPEN + " votes for "
                        + "proposals it has not seen, its limit: the vote of " + role + " on unknown proposal " + id
                        + " is refused");
            }
            memory.hold(message);
            return Optional.empty();
        }
        Optional<CastVote> first = open.get().getVotes().stream()
                .filter(vote -> vote.getRole().equals(role)).findFirst();
        if (first.isPresent()) {
            return Optional.of(secondVote(role, id, first.get().getVote().toString(), first.get().getMsgId()));
        }
        ProposalState proposal = counted(open.get(), message);
        memory.proposal(proposal);
        settle(memory, proposal, clock, out);
        return Optional.empty();
    }

    private static String secondVote(String role, String proposal, String vote, String msgId) {
        return role + " already voted " + vote + " on " + proposal + " (" + msgId
                + "); votes are final, the first one counts";
    }

    private static ProposalState counted(ProposalState proposal, CouncilMessage vote) {
        List<CastVote> votes = new ArrayList<>(proposal.getVotes());
        votes.add(CastVote.newBuilder()
                .setRole(vote.getSender())
                .setVote(vote.getVote())
                .setMsgId(vote.getMsgId())
                .setTimestamp(vote.getTimestamp())
                .build());
        return ProposalState.newBuilder(proposal).setVotes(votes).build();
    }

    /** Decides every open proposal the active roles now let decide: after a role went inactive. */
    private void settleAll(CouncilMemory memory, String council, Instant at, List<Output> out) {
        for (ProposalState proposal : memory.proposals(council)) {
            settle(memory, proposal, at, out);
        }
    }

    /** @return whether the proposal is decided now */
    private boolean settle(CouncilMemory memory, ProposalState proposal, Instant at, List<Output> out) {
        Optional<CouncilDecision> decision = tally.decide(proposal, active(memory, proposal.getCouncilId()), at);
        decision.ifPresent(decided -> close(memory, proposal, decided, out));
        return decision.isPresent();
    }

    private void close(CouncilMemory memory, ProposalState proposal, CouncilDecision unsigned, List<Output> out) {
        // Signed whatever --council-signatures says: the gatekeeper runs a call on an APPROVED decision only when
        // the app's key signed it, so nobody else who can write council.decisions can approve one.
        CouncilDecision decision = CouncilSignatures.sign(unsigned, appKey);
        memory.decide(decision);
        out.add(new Output(decision.getCouncilId(), decision, decision.getTimestamp()));
        if (decision.getOutcome() == CouncilOutcome.NO_QUORUM) {
            escalate(Escalations.noQuorum(proposal, decision.getReason(), decision.getTimestamp()), out);
        }
    }

    /** Whether a call waits in the gatekeeper for this decision: it decides one of the gatekeeper's proposals. */
    public static boolean awaitedByGatekeeper(CouncilDecision decision) {
        return CouncilSettings.GATEKEEPER_SENDER.equals(decision.getProposer());
    }

    private Set<String> active(CouncilMemory memory, String council) {
        return memory.roles(council).stream()
                .filter(role -> role.getStatus() == RoleState.ACTIVE && settings.roles().contains(role.getRole()))
                .map(RoleStatus::getRole)
                .collect(Collectors.toSet());
    }

    private void escalate(CouncilMessage escalation, List<Output> out) {
        out.add(new Output(escalation.getCouncilId(), escalation, escalation.getTimestamp()));
        show(escalation, out);
    }

    private void show(CouncilMessage escalation, List<Output> out) {
        RoutedBlock block = Escalations.chatBlock(escalation);
        Redaction scrubbed = redactor.redact(block.getText());
        out.add(new Output(block.getSessionId(), RoutedBlock.newBuilder(block).setText(scrubbed.text())
                .setRedactions(scrubbed.counts()).build(), block.getTimestamp()));
    }
}
