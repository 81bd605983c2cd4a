package io.cognitionstreams.assembly;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * A session's turns through the {@link PacketAssembler}: each request assembled from the session's history, its
 * pending re-anchor, the skills, the governed identity and episodic memory, all read from a {@link Memory}; each
 * answer and each denial remembered for the next turn. Plain Java: {@link AssemblyTopology} only wires topics and
 * stores to it.
 */
public final class SessionAssembly {

    /** What a session's turns are assembled from, and where they are remembered. */
    public interface Memory {
        /** The session's state; an empty state for a session never seen. */
        SessionState state(String session);

        void state(String session, SessionState state);

        void append(String session, long sequence, ChatMessage message, String encoding, String packetId);

        /** The session's messages before {@code until}, newest first, counted with {@code counter}. Close it. */
        History newestFirst(String session, long until, TokenCounter counter);

        Optional<Skill> skill(String name);

        Collection<Skill> skills();

        /** The governed identity's text, when one was ever set. */
        Optional<String> identity();
    }

    /** A store iterator over a history, which must be closed. */
    public interface History extends Iterator<ChatMessage>, AutoCloseable {
        @Override
        void close();
    }

    /**
     * A turn assembled but not yet remembered: the caller writes the packet and events, or refuses the request,
     * and only then {@link #remember}s the turn, so a refused request leaves no trace in the session.
     */
    public record Turn(CognitionPacket packet, List<PipelineEvent> events, Runnable remember) {
    }

    private final PacketAssembler assembler;
    private final AssemblyInput.MemorySearch episodic;

    public SessionAssembly(PacketAssembler assembler, AssemblyInput.MemorySearch episodic) {
        this.assembler = assembler;
        this.episodic = episodic;
    }

    /**
     * @throws InvalidRecordException the request breaks a rule, or names a skill nobody loaded
     * @throws TokenBudgetException   a field cannot be brought within its budget: no packet, never a cut one
     */
    public Turn assemble(Memory memory, CognitionRequest unchecked) {
        CognitionRequest request = RequestValidator.requireValid(unchecked);
        String session = request.getSessionId();
        SessionState state = memory.state(session);
        Optional<Skill> skill = activeSkill(memory, request);
        TokenCounter counter = assembler.counterFor(request.getTargetModel());
        long historyUntil = request.getHistoryUntil() != null
                ? Math.min(request.getHistoryUntil(), state.getNextSequence()) : state.getNextSequence();
        PacketAssembler.Assembly assembly;
        try (History recent = memory.newestFirst(session, historyUntil, counter)) {
            assembly = assembler.assemble(new AssemblyInput(request, memory.identity().orElse(IdentityDefaults.TEXT),
                    skill, memory::skills, episodic, () -> recent, Optional.ofNullable(state.getReanchorProtocol())));
        }
        CognitionPacket packet = CognitionPacket.newBuilder(assembly.packet()).setHistoryUntil(historyUntil).build();
        return new Turn(packet, assembly.events(), () -> {
            SessionState.Builder next = SessionState.newBuilder(state)
                    .setEncoding(packet.getEncoding())
                    .setReanchorSkill(null)
                    .setReanchorProtocol(null);
            if (request.getRetryCount() == 0) {
                // A retry re-runs the same turn: its prompt is already in the history.
                memory.append(session, state.getNextSequence(), ChatMessage.newBuilder()
                        .setRole(ChatRole.USER)
                        .setContent(request.getUserPrompt())
                        .setTokenCount(packet.getFieldTokens().get("user_prompt"))
                        .build(), packet.getEncoding(), packet.getMeta().getPacketId());
                next.setNextSequence(state.getNextSequence() + 1).setTurns(state.getTurns() + 1);
            }
            memory.state(session, next.build());
        });
    }

    /** The event that says why a request got no packet. */
    public static PipelineEvent budgetError(CognitionRequest request, TokenBudgetException error) {
        return PipelineEvents.event(request.getRequestId() + "-budget-error", Events.TOKEN_BUDGET_ERROR,
                Severity.ERROR, PipelineEvents.Turn.of(request), error.getMessage(), Map.of("field", error.field(),
                        "tokens", String.valueOf(error.tokens()), "budget", String.valueOf(error.budget())),
                request.getTimestamp());
    }

    /** The model's answer joins the history, counted once in the encoding of the packet it answered. */
    public void remember(Memory memory, LlmOutput output) {
        if (output == null || output.getSessionId().isBlank()) {
            throw new InvalidRecordException("llm output without a session cannot join a history");
        }
        SessionState state = memory.state(output.getSessionId());
        // Counted in the encoding of the session's last packet: the one the next packet most likely uses.
        TokenCounter counter = state.getEncoding() != null ? assembler.counterForEncoding(state.getEncoding())
                : assembler.counterFor(output.getModel());
        memory.append(output.getSessionId(), state.getNextSequence(), ChatMessage.newBuilder()
                .setRole(ChatRole.ASSISTANT)
                .setContent(output.getText())
                .setTokenCount(counter.count(output.getText()))
                .build(), counter.encodingName(), output.getPacketId());
        memory.state(output.getSessionId(), SessionState.newBuilder(state)
                .setNextSequence(state.getNextSequence() + 1).build());
    }

    /** A denied call puts the skill's protocol in front of the model on the session's next packet. */
    public void reanchor(Memory memory, ToolDecision decision) {
        if (decision == null) {
            // Assembly is the only reader of tool.decisions, so a tombstone there is its to dead-letter.
            throw new InvalidRecordException("tool decision is null (a tombstone is not a decision)");
        }
        // Approvals, and denials of calls without a session or a protocol, have nothing to re-anchor.
        if (decision.getVerdict() != Verdict.DENIED || decision.getProtocol() == null
                || decision.getCall().getSessionId() == null) {
            return;
        }
        String session = decision.getCall().getSessionId();
        memory.state(session, SessionState.newBuilder(memory.state(session))
                .setReanchorSkill(decision.getCall().getSkill())
                .setReanchorProtocol(decision.getProtocol())
                .build());
    }

    private static Optional<Skill> activeSkill(Memory memory, CognitionRequest request) {
        if (request.getActiveSkill() == null) {
            return Optional.empty();
        }
        return Optional.of(memory.skill(request.getActiveSkill()).orElseThrow(() -> new InvalidRecordException(
                "unknown active_skill '" + request.getActiveSkill() + "': load it with `cognition skills load`")));
    }
}
