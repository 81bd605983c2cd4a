package io.cognitionstreams.gatekeeper;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.specific.SpecificRecord;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.redaction.Redaction;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.council.CouncilIds;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.GatekeeperDenial;
import io.cognitionstreams.schema.PendingApproval;
import io.cognitionstreams.signing.Sha256;
import io.cognitionstreams.skills.SkillDefinition;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.Utf8;
import io.cognitionstreams.skills.ToolName;
import io.cognitionstreams.skills.ToolNames;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Lineage;
import io.cognitionstreams.topics.Topics;

/**
 * The gatekeeper over its sessions: each call decided by {@link Gatekeeper} and written up as its decision, its
 * shell block and its events, with the session's active skills, counters and recent denials kept in a
 * {@link Memory}; each outcome given the cognitive-load warning its session is due; each control applied. Plain
 * Java: {@link GatekeeperTopology} only wires topics and the store to it.
 */
public final class GatekeeperSessions {

    public static final String DRIFT = "DRIFT";
    public static final String PRIVILEGED_CALL = "PRIVILEGED_CALL";
    public static final String COGNITIVE_OVERLOAD = "COGNITIVE_OVERLOAD";
    /** A call waits for its council: the proposal is out. */
    public static final String APPROVAL_REQUESTED = "APPROVAL_REQUESTED";
    /** Where the events of calls the gatekeeper denies on its own clock (no decision in time) say they come from. */
    static final String PENDING_APPROVALS = "pending-approvals";
    /** Bigger arguments are refused: a decision carries the call and the skill's protocol in one record. */
    public static final int MAX_ARGUMENT_BYTES = 256 * 1024;
    /** Denials kept per session for `cognition gatekeeper`; older ones only count. */
    public static final int RECENT_DENIALS = 20;
    /** Events of a call without a session are keyed by the component. */
    static final String COMPONENT = "gatekeeper";

    private static final ToolName SHELL_TOOL = ToolNames.split(OutputRouter.SHELL_TOOL).orElseThrow();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Each session's gatekeeper state, by session id. */
    public interface Memory {
        Optional<GatekeeperSession> session(String session);

        void session(String session, GatekeeperSession state);

        /** Forgets the session's state, its recorded results and its recent turns. */
        void forget(String session);

        /** The session's recent turns ({@link RecentTurns}) as of its latest packet; empty before its first. */
        Optional<String> turns(String session);

        void turns(String session, String turns);

        /** A result of the session's as its model saw it; empty if none was recorded. */
        Optional<ToolResult> result(String session, String callId);

        void result(ToolResult result);

        /** The call of {@code session} waiting for the council on {@code proposalId}, if one is. */
        Optional<PendingApproval> pending(String session, String proposalId);

        /** Remembers a call waiting for the council; null forgets it (decided). */
        void pending(String session, String proposalId, PendingApproval approval);
    }

    /**
     * What one call led to: records keyed by session (or {@value #COMPONENT} for a call without one), and the
     * decision's skill and tool when it was a denial, for the drift metric.
     */
    public record Decided(List<Keyed> records, Optional<ToolCall> denied) {
    }

    /** A record and the key it goes under. */
    public record Keyed(String key, SpecificRecord value) {
    }

    private final GatekeeperSettings settings;
    private final CognitiveLoad load;
    private final Redactor redactor;
    private final DecisionSignatures.Signer signer;
    private final ApprovalRule approvals;

    /**
     * @param redactor scrubs the command text of approved shell calls before channel.shell, which people and logs
     *                 read; executors run the approved command from tool.decisions
     * @param signer   signs approvals, so that executors can tell them from records anyone else wrote
     */
    public GatekeeperSessions(GatekeeperSettings settings, Redactor redactor, DecisionSignatures.Signer signer) {
        this.settings = settings;
        this.load = settings.load();
        this.redactor = redactor;
        this.signer = signer;
        this.approvals = settings.approvalRule();
    }

    /**
     * Decides, with {@code gatekeeper}, a call read under {@code key} at {@code now} from {@code source}. A call the
     * {@link ApprovalRule} says needs approval is not decided yet: it gets a PENDING decision, and a proposal for its
     * council stamped {@code wallClock}; {@link #settle} decides it when the council has.
     *
     * @param catalog what the executors say of each tool (cognition.tools)
     */
    public Decided decide(Memory memory, Gatekeeper gatekeeper, ApprovalRule.Catalog catalog, String key,
                          ToolCall raw, Instant now, Instant wallClock, PipelineEvents.Source source) {
        if (raw == null) {
            throw new InvalidRecordException("tool call is null (tombstones are not calls)");
        }
        if (raw.getCallId().isBlank()) {
            throw new InvalidRecordException("tool call has an empty call_id: its decision could not be matched "
                    + "to it");
        }
        long argumentBytes = Utf8.length(raw.getArguments());
        if (argumentBytes > MAX_ARGUMENT_BYTES) {
            throw new InvalidRecordException("tool call arguments have " + argumentBytes + " bytes, over the "
                    + "limit of " + MAX_ARGUMENT_BYTES + ": a decision carries them with the skill's protocol");
        }
        // An agent may write a secret into a call; the decision, which is what executes, never carries it.
        ToolCall call = withoutSecrets(raw);
        // A call without a session is denied below, and has no session state to keep.
        String session = call.getSessionId() == null || call.getSessionId().isBlank() ? null : call.getSessionId();
        if (session != null) {
            requireKeyedBySession(key, session, Topics.TOOL_CALLS);
        }
        Decision decision = gatekeeper.decide(new Gatekeeper.Call(call.getSessionId(), call.getCaller(),
                call.getSkill(), call.getTool()));
        if (decision.approved() && call.getTimeTravel() == TimeTravel.REPLAY) {
            // A replay is answered as its original was: a call the council denied is denied again, with its reason.
            decision = councilDenialOf(memory, gatekeeper, call).orElse(decision);
        }
        // A replayed or (by default) forked turn never runs a tool: not here, where people read commands to run
        // them, and not in an executor, which skips signed approvals of such turns (docs/timetravel.md). Nor does it
        // ask the council: only a live call, or one of a fork started with --execute-tools, is put to it.
        boolean executes = call.getTimeTravel() == null || call.getTimeTravel() == TimeTravel.FORK_EXECUTE;
        if (decision.approved() && executes && session != null) {
            Optional<ApprovalRule.Need> need = approvals.need(call.getTool(),
                    decision.privileged() ? Optional.empty() : gatekeeper.skill(call.getSkill()), catalog);
            if (need.isPresent()) {
                return propose(memory, gatekeeper, key, session, call, decision, need.get(), now, wallClock,
                        source);
            }
        }
        return written(memory, key, session, call, decision, null, now, source);
    }

    /**
     * Remembers the session's recent turns from a packet the assembly built for it, for the proposals of the calls
     * its answer makes. A packet that names no session, or is keyed by another, leaves nothing: the model worker
     * and the assembly own cognition.packets and dead-letter what is wrong with it.
     */
    public void remember(Memory memory, String key, CognitionPacket packet) {
        if (packet == null || packet.getSessionId() == null || !packet.getSessionId().equals(key)) {
            return;
        }
        String turns = RecentTurns.of(packet);
        if (!turns.isEmpty()) {
            memory.turns(key, turns);
        }
    }

    /**
     * Turns the council's decision on a waiting call into the call's decision: an approval signed with the
     * council's decision inside it, or a denial with the council's reason, re-anchored like every other.
     *
     * @param key the session the council keyed the decision by (council.decisions.by-session)
     * @throws InvalidRecordException when the decision is not the app's council's (unsigned, forged), not on one of
     *                                the gatekeeper's proposals, keyed by another session than it names, or no call
     *                                of the session waits for it, or it is of another council or of another content
     *                                than the proposal sent
     */
    public Decided settle(Memory memory, Gatekeeper gatekeeper, String key, CouncilDecision decision,
                          PipelineEvents.Source source) {
        if (decision == null) {
            throw new InvalidRecordException("council decision is null (tombstones are not decisions)");
        }
        CouncilSignatures.problem(decision, signer.publicKey()).ifPresent(problem -> {
            throw new InvalidRecordException("decision on proposal " + decision.getProposalId() + " refused: "
                    + problem);
        });
        if (!CouncilSettings.GATEKEEPER_SENDER.equals(decision.getProposer())) {
            throw new InvalidRecordException("decision on proposal " + decision.getProposalId() + " of "
                    + decision.getProposer() + ": " + Topics.COUNCIL_DECISIONS_BY_SESSION
                    + " carries only decisions on the gatekeeper's proposals");
        }
        String session = decision.getSessionId();
        if (session == null || session.isBlank()) {
            throw new InvalidRecordException("decision on the gatekeeper's proposal " + decision.getProposalId()
                    + " names no session");
        }
        requireKeyedBySession(key, session, Topics.COUNCIL_DECISIONS_BY_SESSION);
        PendingApproval pending = memory.pending(session, decision.getProposalId()).orElseThrow(() ->
                new InvalidRecordException("council " + decision.getCouncilId() + " decided proposal "
                        + decision.getProposalId() + " (" + decision.getOutcome() + "), but no call of session "
                        + session + " waits for it: it was decided already, or never proposed by this gatekeeper"));
        CouncilMessage proposal = pending.getProposal();
        if (!proposal.getCouncilId().equals(decision.getCouncilId())) {
            throw new InvalidRecordException("proposal " + decision.getProposalId() + " was put to council "
                    + proposal.getCouncilId() + ", not " + decision.getCouncilId());
        }
        String digest = Sha256.hex(proposal.getContent());
        if (!digest.equals(decision.getProposalDigest())) {
            throw new InvalidRecordException("the decision on proposal " + decision.getProposalId() + " is of "
                    + "content with digest " + decision.getProposalDigest() + ", not of the proposal sent (" + digest
                    + "): the call is not decided by it");
        }
        memory.pending(session, decision.getProposalId(), null);
        ToolDecision waiting = pending.getDecision();
        ToolCall call = waiting.getCall();
        String tally = decision.getYes() + " yes, " + decision.getNo() + " no, " + decision.getAbstain()
                + " abstain" + (decision.getVoters().isEmpty() ? "" : " (" + String.join(", ",
                decision.getVoters()) + ")");
        Decision verdict = decision.getOutcome() == CouncilOutcome.APPROVED
                ? new Decision(Decision.Kind.APPROVED, "approved by council " + decision.getCouncilId() + " ("
                        + tally + "): " + decision.getReason(), null, null, waiting.getRetrySafe())
                : councilDenial(gatekeeper, call, "denied: council " + decision.getCouncilId() + " "
                        + decision.getOutcome() + " proposal " + decision.getProposalId() + " (" + tally + "): "
                        + decision.getReason() + ". The call did not run");
        return written(memory, key, session, call, verdict, decision, Instant.ofEpochMilli(Math.max(
                decision.getTimestamp().toEpochMilli(), waiting.getTimestamp().toEpochMilli())), source);
    }

    /**
     * Denies a call that has waited longer than the approval timeout by {@code now}: its council never decided (it
     * refused the proposal, or is not running). Empty when it has not waited that long yet.
     */
    public Optional<Decided> expire(Memory memory, Gatekeeper gatekeeper, PendingApproval pending, Instant now) {
        CouncilMessage proposal = pending.getProposal();
        if (!now.isAfter(proposal.getTimestamp().plus(settings.approvalTimeout()))) {
            return Optional.empty();
        }
        ToolCall call = pending.getDecision().getCall();
        String session = call.getSessionId();
        memory.pending(session, proposal.getMsgId(), null);
        Decision verdict = councilDenial(gatekeeper, call, "denied: council " + proposal.getCouncilId()
                + " did not decide proposal " + proposal.getMsgId() + " within " + settings.approvalTimeout()
                + " (it may have refused the proposal: see cognition.dlq; or it is not running). The call did not run");
        // No input record leads to it: its events are named after the proposal that timed out.
        PipelineEvents.Source source = new PipelineEvents.Source(PENDING_APPROVALS + "/" + proposal.getMsgId(), 0,
                proposal.getTimestamp().toEpochMilli());
        return Optional.of(written(memory, session, session, call, verdict, null, now, source));
    }

    private Decision councilDenial(Gatekeeper gatekeeper, ToolCall call, String reason) {
        Optional<String> protocol = gatekeeper.skill(call.getSkill()).map(SkillDefinition::protocol);
        return Decision.deny(Decision.Kind.COUNCIL, protocol.isPresent() ? reason + ". Re-read the protocol of "
                + "skill \"" + call.getSkill() + "\" below and continue within it." : reason + ".",
                protocol.orElse(null));
    }

    /** The original's council denial, when a replayed call's original was denied by its council. */
    private Optional<Decision> councilDenialOf(Memory memory, Gatekeeper gatekeeper, ToolCall call) {
        return Optional.ofNullable(call.getParentId())
                .flatMap(original -> memory.result(call.getSessionId(), original))
                .filter(result -> result.getStatus() == ToolStatus.DENIED && result.getError() != null)
                .map(result -> Decision.deny(Decision.Kind.COUNCIL, result.getError(),
                        gatekeeper.skill(call.getSkill()).map(SkillDefinition::protocol).orElse(null)));
    }

    /** A PENDING decision for the call, and its proposal for the session's council. */
    private Decided propose(Memory memory, Gatekeeper gatekeeper, String key, String session, ToolCall call,
                            Decision decision,
                            ApprovalRule.Need need, Instant now, Instant wallClock, PipelineEvents.Source source) {
        CouncilIds.problem(CouncilIds.orDefault(call.getCouncilId())).ifPresent(problem -> {
            throw new InvalidRecordException("the call needs its council's approval, but " + problem);
        });
        if (ToolNames.split(call.getTool()).map(SHELL_TOOL::equals).orElse(false)) {
            shellCommand(call); // a shell call that could never run is refused now, not after the council's vote
        }
        String council = CouncilIds.orDefault(call.getCouncilId());
        CouncilMessage proposal = Proposals.proposal(call, council, need, redactor, wallClock,
                gatekeeper.skill(call.getSkill()).map(SkillDefinition::protocol), memory.turns(session));
        String proposalId = proposal.getMsgId();
        if (memory.pending(session, proposalId).isPresent()) {
            throw new InvalidRecordException("call " + call.getCallId() + " of session " + session + " already waits "
                    + "for council " + council + " (proposal " + proposalId + "): a call id is decided once");
        }
        ToolDecision pending = ToolDecision.newBuilder()
                .setCall(call)
                .setVerdict(Verdict.PENDING)
                .setReason("waiting for council " + council + " (proposal " + proposalId + "): " + need.reason())
                .setRetrySafe(decision.retrySafe())
                .setProposalId(proposalId)
                .setTimestamp(now)
                .build();
        memory.pending(session, proposalId, new PendingApproval(pending, proposal));
        Map<String, String> attributes = callAttributes(call);
        attributes.put("council", council);
        attributes.put("proposal", proposalId);
        attributes.put("risk", need.risk().name());
        return new Decided(List.of(new Keyed(key, pending), new Keyed(council, proposal),
                new Keyed(session, PipelineEvents.event(source.eventId(APPROVAL_REQUESTED), APPROVAL_REQUESTED,
                        Severity.INFO, PipelineEvents.Turn.of(call), pending.getReason(), attributes, now))),
                Optional.empty());
    }

    /**
     * The records of a decided call: its decision (an approval signed, with the council's decision inside when one
     * decided it), an approved shell call's block, a denial's result and DRIFT event, and the session's state.
     */
    private Decided written(Memory memory, String key, String session, ToolCall call, Decision decision,
                            CouncilDecision council, Instant now, PipelineEvents.Source source) {
        // Built before the state changes: a call that cannot run is dead-lettered with nothing half-done.
        boolean shellCall = ToolNames.split(call.getTool()).map(SHELL_TOOL::equals).orElse(false);
        boolean executes = call.getTimeTravel() == null || call.getTimeTravel() == TimeTravel.FORK_EXECUTE;
        RoutedBlock shell = decision.approved() && shellCall && executes
                ? shellBlock(call, redactor.redact(shellCommand(call))) : null;
        List<String> newlyOverloaded = session != null ? remember(memory, session, call, decision, now) : null;

        List<Keyed> records = new ArrayList<>();
        ToolDecision verdict = ToolDecision.newBuilder()
                .setCall(call)
                .setVerdict(decision.approved() ? Verdict.APPROVED : Verdict.DENIED)
                .setReason(decision.reason())
                .setRequiredPermission(decision.requiredPermission())
                .setProtocol(decision.protocol())
                .setRetrySafe(decision.retrySafe())
                .setProposalId(council == null ? null : council.getProposalId())
                .setCouncilDecision(council)
                .setTimestamp(now)
                .build();
        records.add(new Keyed(key, decision.approved() ? signer.sign(verdict) : verdict));
        if (shell != null) {
            records.add(new Keyed(key, shell));
        }
        String events = session != null ? session : COMPONENT;
        if (!decision.approved() && session != null) {
            // Every call of a turn gets one result, so the session knows when all of them are in.
            ToolResult denied = denial(call, decision, now);
            if (decision.kind() == Decision.Kind.COUNCIL) {
                memory.result(denied); // what a replay of the session answers this call with
            }
            records.add(new Keyed(key, denied));
        }
        if (decision.approved() && !executes && session != null) {
            records.add(new Keyed(key, notExecuted(memory, call, now)));
        }
        if (!decision.approved()) {
            Map<String, String> attributes = callAttributes(call);
            attributes.put("kind", decision.kind().label());
            if (decision.requiredPermission() != null) {
                attributes.put("required_permission", decision.requiredPermission());
            }
            records.add(new Keyed(events, event(call, DRIFT, decision.reason(), attributes, now, source)));
        }
        if (decision.privileged()) {
            records.add(new Keyed(events, event(call, PRIVILEGED_CALL, decision.reason(), callAttributes(call),
                    now, source)));
        }
        if (newlyOverloaded != null) {
            Map<String, String> attributes = new LinkedHashMap<>();
            attributes.put("active_skills", String.join(",", newlyOverloaded));
            attributes.put("count", String.valueOf(newlyOverloaded.size()));
            attributes.put("threshold", String.valueOf(load.threshold()));
            records.add(new Keyed(events, event(call, COGNITIVE_OVERLOAD,
                    CognitiveLoad.warning(newlyOverloaded.size(), load.threshold()), attributes, now, source)));
        }
        return new Decided(records, decision.approved() ? Optional.empty() : Optional.of(call));
    }

    /**
     * A tool's outcome as the session's model gets it: with the cognitive-load warning when the session has more
     * active skills than the threshold. A failed result is about the call, not the session's load: it passes
     * unchanged, as does a calm one.
     */
    public ToolResult annotate(Memory memory, String key, ToolResult result) {
        if (result == null) {
            throw new InvalidRecordException("tool outcome is null (tombstones are not results)");
        }
        if (result.getSessionId().isBlank() || result.getCallId().isBlank()) {
            throw new InvalidRecordException("tool outcome has an empty session_id or call_id");
        }
        requireKeyedBySession(key, result.getSessionId(), Topics.TOOL_OUTCOMES);
        int active = memory.session(result.getSessionId())
                .map(state -> ActiveSkills.restore(settings.rootCaller(), state.getActiveSkills()).count())
                .orElse(0);
        if (!result.getSuccess() || !load.overloaded(active)) {
            memory.result(result);
            return result;
        }
        String warning = CognitiveLoad.warning(active, load.threshold());
        ToolResult.Builder annotated = ToolResult.newBuilder(result).setCognitiveLoadWarning(warning);
        if (result.getText() != null) {
            annotated.setText(ResultAnnotator.annotateText(result.getText(), warning));
        }
        if (result.getJson() != null) {
            annotated.setJson(ResultAnnotator.annotateJson(result.getJson(), warning).json());
        }
        ToolResult warned = annotated.build();
        memory.result(warned);
        return warned;
    }

    /** A denied call's result: no executor ever sees the call, so the gatekeeper answers it. */
    private static ToolResult denial(ToolCall call, Decision decision, Instant now) {
        return ToolResult.newBuilder()
                .setCallId(call.getCallId())
                .setSessionId(call.getSessionId())
                .setTool(call.getTool())
                .setSuccess(false)
                .setError(decision.reason())
                .setStatus(ToolStatus.DENIED)
                .setExecutor(COMPONENT)
                .setPacketId(call.getPacketId())
                .setCallCount(call.getCallCount())
                .setTimeTravel(call.getTimeTravel())
                .setParentId(call.getParentId())
                .setOriginSessionId(call.getOriginSessionId())
                .setTimestamp(now)
                .build();
    }

    /**
     * The answer to an approved call of a turn that does not execute: a replay gets the original call's result as
     * its model saw it, so the replayed session's history is the original's; a fork, or a replayed call whose
     * original has no recorded result, gets NOT_EXECUTED.
     */
    private static ToolResult notExecuted(Memory memory, ToolCall call, Instant now) {
        Optional<ToolResult> original = call.getTimeTravel() == TimeTravel.REPLAY && call.getParentId() != null
                ? memory.result(call.getSessionId(), call.getParentId()) : Optional.empty();
        ToolResult.Builder result = original.map(ToolResult::newBuilder).orElseGet(() -> ToolResult.newBuilder()
                .setSuccess(false)
                .setStatus(ToolStatus.NOT_EXECUTED)
                .setExecutor(COMPONENT)
                .setError(call.getTimeTravel() == TimeTravel.REPLAY
                        ? "not executed during replay: the original call (" + call.getParentId() + ") has no "
                                + "recorded result (it had none, or it is older than the gatekeeper keeps them: "
                                + "run --recorded-results-retention)"
                        : "recorded, not executed: a fork runs tools only when started with fork --execute-tools"));
        return result
                .setCallId(call.getCallId())
                .setSessionId(call.getSessionId())
                .setTool(call.getTool())
                .setPacketId(call.getPacketId())
                .setCallCount(call.getCallCount())
                .setTimeTravel(call.getTimeTravel())
                .setParentId(call.getParentId())
                .setOriginSessionId(call.getOriginSessionId())
                .setTimestamp(now)
                .build();
    }

    /** RESET_SKILLS empties the active skills (the load), keeping counters and denials; END_SESSION forgets all. */
    public void control(Memory memory, String key, SessionControl control, Instant now) {
        if (control == null) {
            throw new InvalidRecordException("session control record is null (tombstones are not commands)");
        }
        String session = control.getSessionId();
        if (session.isBlank()) {
            throw new InvalidRecordException("session control record has an empty session_id");
        }
        requireKeyedBySession(key, session, Topics.SESSION_CONTROL);
        switch (control.getAction()) {
            case RESET_SKILLS -> memory.session(session).ifPresent(state -> memory.session(session,
                    GatekeeperSession.newBuilder(state).setActiveSkills(List.of()).setUpdated(now).build()));
            case END_SESSION -> memory.forget(session);
        }
    }

    /**
     * Counts the call in the session's state; an approved call by a skill activates it (a denied call used
     * nothing, and the root caller is no skill). Returns the active skills if this call put the session over
     * the threshold, else null.
     */
    private List<String> remember(Memory memory, String session, ToolCall call, Decision decision, Instant now) {
        // Built, not a bare builder: a builder leaves unset fields null instead of their defaults.
        GatekeeperSession.Builder next = GatekeeperSession.newBuilder(memory.session(session)
                .orElseGet(() -> GatekeeperSession.newBuilder().setUpdated(now).build()));
        ActiveSkills active = ActiveSkills.restore(settings.rootCaller(), next.getActiveSkills());
        boolean wasOverloaded = load.overloaded(active.count());
        if (decision.privileged()) {
            next.setApprovedCalls(next.getApprovedCalls() + 1).setPrivilegedCalls(next.getPrivilegedCalls() + 1);
        } else if (decision.approved()) {
            next.setApprovedCalls(next.getApprovedCalls() + 1);
            active.activate(call.getSkill());
        } else {
            List<GatekeeperDenial> denials = new ArrayList<>(next.getRecentDenials());
            denials.add(GatekeeperDenial.newBuilder()
                    .setCallId(call.getCallId())
                    .setTool(call.getTool())
                    .setSkill(call.getSkill())
                    .setKind(decision.kind().label())
                    .setReason(decision.reason())
                    .setRequiredPermission(decision.requiredPermission())
                    .setTimestamp(now)
                    .build());
            next.setDeniedCalls(next.getDeniedCalls() + 1)
                    .setRecentDenials(new ArrayList<>(denials.subList(
                            Math.max(0, denials.size() - RECENT_DENIALS), denials.size())));
        }
        List<String> skills = active.skills();
        memory.session(session, next.setActiveSkills(skills).setOverloadThreshold(load.threshold()).setUpdated(now)
                .build());
        return !wasOverloaded && load.overloaded(skills.size()) ? skills : null;
    }

    /** A record for a session must be keyed by it: otherwise it reaches the task that does not own its state. */
    private static void requireKeyedBySession(String key, String session, String topic) {
        if (!session.equals(key)) {
            throw new InvalidRecordException("a " + topic + " record of session \"" + session + "\" is keyed \""
                    + key + "\"; key it by its session id");
        }
    }

    private static ToolCall withoutSecrets(ToolCall call) {
        Redaction arguments = Redactor.secretsInArguments(call.getArguments());
        return arguments.total() == 0 ? call : ToolCall.newBuilder(call).setArguments(arguments.text()).build();
    }

    private static Map<String, String> callAttributes(ToolCall call) {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("tool", call.getTool());
        attributes.put("caller", call.getCaller());
        if (call.getSkill() != null) {
            attributes.put("skill", call.getSkill());
        }
        return attributes;
    }

    private static PipelineEvent event(ToolCall call, String type, String message, Map<String, String> attributes,
                                       Instant now, PipelineEvents.Source source) {
        return PipelineEvents.event(source.eventId(type), type, Severity.WARN,
                PipelineEvents.Turn.of(call), message, attributes, now);
    }

    /**
     * The EXECUTE block an approved shell call runs, with the lineage the call carries. Its parent is the original
     * packet, as for every other block of a re-run turn: the packet whose output made the original call.
     */
    private static RoutedBlock shellBlock(ToolCall call, Redaction command) {
        Optional<Lineage.Place> routed = Lineage.place(call.getCallId());
        return RoutedBlock.newBuilder()
                .setBlockId(call.getCallId())
                .setOutputId(routed.map(Lineage.Place::outputId).orElse(call.getCallId()))
                .setPacketId(call.getPacketId() != null ? call.getPacketId() : "")
                .setParentId(Optional.ofNullable(call.getParentId()).flatMap(Lineage::packetOfCall).orElse(null))
                .setTimeTravel(call.getTimeTravel())
                .setOriginSessionId(call.getOriginSessionId())
                .setRequestId(call.getRequestId() != null ? call.getRequestId() : "")
                .setSessionId(call.getSessionId())
                .setMarker(Marker.EXECUTE)
                .setSequence(routed.map(Lineage.Place::index).orElse(0))
                .setBlockCount(call.getBlockCount())
                .setChannel(Channel.SHELL.id())
                .setText(command.text())
                .setRedactions(command.counts())
                .setTimestamp(call.getTimestamp())
                .build();
    }

    private static String shellCommand(ToolCall call) {
        JsonNode command;
        try {
            JsonNode arguments = JSON.readTree(call.getArguments());
            command = arguments == null ? null : arguments.get("command");
        } catch (JsonProcessingException e) {
            command = null;
        }
        if (command == null || !command.isTextual() || command.textValue().isBlank()) {
            String arguments = call.getArguments();
            throw new InvalidRecordException("approved " + call.getTool() + " call has no command to run: "
                    + "arguments must be a JSON object with a non-empty \"command\" string, got "
                    + (arguments.length() <= 200 ? arguments : arguments.substring(0, 200) + "..."));
        }
        return command.textValue();
    }
}
