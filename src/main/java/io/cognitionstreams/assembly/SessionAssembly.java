package io.cognitionstreams.assembly;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import io.cognitionstreams.council.CouncilIds;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.governance.MemoryScopes;
import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MemoryLookup;
import io.cognitionstreams.schema.MemoryRecall;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.SessionUsage;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.TurnSettings;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.schema.WaitingTurn;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.telemetry.Meters;

/**
 * A session's turns through the {@link PacketAssembler}: each request assembled from the session's history, its
 * pending re-anchor, the skills, the governed identity, the personas and episodic memory, all read from a
 * {@link Memory}; each answer, tool result, denial and imported message remembered for the next turn. Plain Java:
 * {@link AssemblyTopology} only wires topics and stores to it.
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

        /** The persona loaded under {@code name}. */
        Optional<Persona> persona(String name);

        /** The names of the loaded personas. */
        Collection<String> personaNames();

        /** The tools executors offer. */
        RenderedTools tools();

        /** Whether this task holds {@code scope}'s memories; else another task does, and is asked (MemoryLookup). */
        boolean holdsScope(String scope);

        /** What a turn of {@code scope}, which this task holds, may recall ({@link EpisodicMemory#in}). */
        AssemblyInput.MemorySearch memories(String scope, Optional<Instant> asOf);

        /** The session's turn {@code sequence} among those waiting for memories, if it still waits. */
        Optional<WaitingTurn> waiting(String session, long sequence);

        void waiting(String session, long sequence, WaitingTurn turn);

        void doneWaiting(String session, long sequence);
    }

    /** Where the record a turn came in sits, and its key: what its events and its dead letter name. */
    public record Origin(String topic, int partition, long offset) {
        PipelineEvents.Source source() {
            return new PipelineEvents.Source(topic, partition, offset);
        }
    }

    /**
     * What became of an arriving request: assembled now by the caller ({@link #assemble}), or waiting behind the
     * session's earlier turns or for the memories of a scope another task holds, which {@code lookup} asks for.
     */
    public record Arrival(boolean now, Optional<MemoryLookup> lookup) {
        static final Arrival NOW = new Arrival(true, Optional.empty());
    }

    /** What a waiting turn gives, once its turn comes: a turn to write and remember, or its refusal. */
    public interface Drain {
        /** Writes the turn's packet and events, then remembers it ({@link Turn#remember}). */
        void assembled(Turn turn, WaitingTurn waited);

        /** Writes the event and dead letter of a request that gets no packet. */
        void refused(WaitingTurn waited, RuntimeException why);
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

    /**
     * What a tool result leads to, once every result of its turn is in: the session's next turn (auto-continue),
     * or, past the step limit, an escalation to the council and the event that says so.
     */
    public record AfterResult(Optional<CognitionRequest> next, Optional<CouncilMessage> escalation,
                              Optional<PipelineEvent> event, Optional<SessionUsage> usage) {
        static final AfterResult NOTHING = new AfterResult(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    /**
     * What an answer leads to: the session's usage with the answer's own added, and what the results that waited
     * for it ({@link #waitsForItsAnswer}) lead to, now that they follow it in the history.
     */
    public record AfterAnswer(SessionUsage usage, List<AfterResult> released) {
    }

    /** The prompt of a turn the pipeline asks for on its own, once the tool results are in the history. */
    public static final String CONTINUE_PROMPT = "Your tool calls have finished; their results are above. Continue "
            + "the task from them.";
    public static final String AUTO_CONTINUE_LIMIT = "AUTO_CONTINUE_LIMIT";
    public static final String SESSION_BUDGET = "SESSION_BUDGET";
    /** The model a request targets when it names none: counts results of sessions that never had a packet. */
    private static final String DEFAULT_MODEL =
            CognitionRequest.getClassSchema().getField("target_model").defaultVal().toString();

    /**
     * Results held for an answer not yet in the history, at most: more calls than a turn makes, and (with
     * {@link #MAX_HELD_CHARS}) well inside the 1 MB a record of the session-state changelog may take.
     */
    static final int MAX_HELD_RESULTS = 64;
    static final long MAX_HELD_CHARS = 256 * 1024;

    /** Enough known names in a letter to spot a typo, bounded for a topic of many personas. */
    static final int MAX_PERSONAS_NAMED = 50;

    private final PacketAssembler assembler;
    private final EmbeddingModel memoryModel;
    private final int autoContinueSteps;
    private final SessionBudgets budgets;

    /**
     * @param memoryModel       what embeds the prompts of turns whose memories another task holds
     * @param autoContinueSteps turns a session may take on its own in a row after tool results; 0 for none
     * @param budgets           what a session may spend before it no longer continues on its own
     */
    public SessionAssembly(PacketAssembler assembler, EmbeddingModel memoryModel, int autoContinueSteps,
                           SessionBudgets budgets) {
        this.assembler = assembler;
        this.memoryModel = memoryModel;
        this.autoContinueSteps = autoContinueSteps;
        this.budgets = budgets;
    }

    /**
     * A request as it arrives: assembled at once when the session has no turn waiting and this task holds its
     * memory scope; else it waits, in order behind the session's earlier turns, and when another task holds its scope
     * a lookup carries its prompt's embedding there. Waiting keeps a session's turns in the order they came, whatever
     * order their memories come back in.
     *
     * @throws InvalidRecordException the request breaks a rule: dead-lettered as it arrives, never held
     */
    public Arrival arrive(Memory memory, CognitionRequest unchecked, Origin origin) {
        CognitionRequest valid = RequestValidator.requireValid(unchecked);
        String session = valid.getSessionId();
        SessionState state = memory.state(session);
        boolean waiting = state.getWaitingUntil() > state.getWaitingFrom();
        // The scope it will be assembled with once the turns before it are: theirs when it names none.
        String scope = valid.getMemoryScope() != null ? valid.getMemoryScope()
                : waiting && state.getWaitingScope() != null ? state.getWaitingScope()
                : MemoryScopes.orSession(state.getMemoryScope(), session);
        boolean held = memory.holdsScope(scope);
        if (!waiting && held) {
            return Arrival.NOW;
        }
        long sequence = state.getWaitingUntil();
        memory.waiting(session, sequence, WaitingTurn.newBuilder().setRequest(valid).setScope(scope)
                .setSourceTopic(origin.topic()).setSourcePartition(origin.partition())
                .setSourceOffset(origin.offset()).build());
        memory.state(session, SessionState.newBuilder(state).setWaitingFrom(waiting ? state.getWaitingFrom()
                : sequence).setWaitingUntil(sequence + 1).setWaitingScope(scope).build());
        if (held) {
            return new Arrival(false, Optional.empty());
        }
        return new Arrival(false, Optional.of(MemoryLookup.newBuilder().setSessionId(session).setSequence(sequence)
                .setScope(scope).setQuery(ByteBuffer.allocate(0)).setQueryInt8(Vectors.toInt8(Vectors.unit(
                        memoryModel.embedder().embed(List.of(valid.getUserPrompt())).get(0))))
                .setEmbeddingModel(memoryModel.name()).setK(ContextLayers.MEMORY_TOP_K)
                .setWrittenUntil(valid.getMemoryAsOf()).build()));
    }

    /**
     * The memories a lookup asked for are back: the turn takes them, and the session's waiting turns are assembled,
     * in order, as far as each has what it needs.
     */
    public void recalled(Memory memory, MemoryRecall recall, Drain drain) {
        Optional<WaitingTurn> turn = memory.waiting(recall.getSessionId(), recall.getSequence());
        if (turn.isEmpty() || turn.get().getRecalled() != null) {
            return;
        }
        memory.waiting(recall.getSessionId(), recall.getSequence(), WaitingTurn.newBuilder(turn.get())
                .setRecalled(recall.getRecalled()).build());
        drain(memory, recall.getSessionId(), drain);
    }

    /**
     * Assembles the session's waiting turns from the first, as long as each has its memories (or this task holds its
     * scope); a turn that cannot be assembled is refused, never left to hold up the ones after it.
     */
    public void drain(Memory memory, String session, Drain drain) {
        while (true) {
            SessionState state = memory.state(session);
            long first = state.getWaitingFrom();
            if (first >= state.getWaitingUntil()) {
                return;
            }
            Optional<WaitingTurn> head = memory.waiting(session, first);
            if (head.isPresent() && head.get().getRecalled() == null && !memory.holdsScope(head.get().getScope())) {
                return;
            }
            if (head.isPresent()) {
                WaitingTurn waited = head.get();
                Turn turn = null;
                try {
                    turn = assemble(memory, waited.getRequest(), origin(waited).source(),
                            Optional.ofNullable(waited.getRecalled()));
                } catch (RuntimeException e) {
                    drain.refused(waited, e);
                }
                if (turn != null) {
                    try {
                        drain.assembled(turn, waited);
                    } catch (RuntimeException e) {
                        drain.refused(waited, e);
                    }
                }
                memory.doneWaiting(session, first);
            }
            SessionState after = memory.state(session);
            boolean last = first + 1 >= after.getWaitingUntil();
            memory.state(session, SessionState.newBuilder(after).setWaitingFrom(first + 1)
                    .setWaitingScope(last ? null : after.getWaitingScope()).build());
        }
    }

    /** Where a waiting turn's request came in. */
    public static Origin origin(WaitingTurn waited) {
        return new Origin(waited.getSourceTopic(), waited.getSourcePartition(), waited.getSourceOffset());
    }

    /**
     * @throws InvalidRecordException the request breaks a rule, or names a skill or a persona nobody loaded
     * @param source                 where the request was read: the ids of the packet's events
     * @throws TokenBudgetException   a field cannot be brought within its budget: no packet, never a cut one
     */
    public Turn assemble(Memory memory, CognitionRequest unchecked, PipelineEvents.Source source) {
        return assemble(memory, unchecked, source, Optional.empty());
    }

    /** @param recalled what another task's search of the turn's scope found, when that task holds the scope */
    private Turn assemble(Memory memory, CognitionRequest unchecked, PipelineEvents.Source source,
                          Optional<List<String>> recalled) {
        CognitionRequest valid = RequestValidator.requireValid(unchecked);
        String session = valid.getSessionId();
        SessionState state = joinHeld(memory, session);
        // The council and the memory scope a session named stay its own: a later request need not repeat them, and
        // the packet carries them, so that routing and AutoFix know where to escalate and the embedding of the turn's
        // memory blocks knows their scope, without a join. A session that never named a scope has its own.
        CognitionRequest request = CognitionRequest.newBuilder(valid)
                .setCouncilId(valid.getCouncilId() != null ? valid.getCouncilId() : state.getCouncilId())
                .setMemoryScope(valid.getMemoryScope() != null ? valid.getMemoryScope()
                        : MemoryScopes.orSession(state.getMemoryScope(), session))
                .build();
        Optional<Skill> skill = activeSkill(memory, request);
        Persona persona = persona(memory, request);
        TokenCounter counter = assembler.counterFor(request.getTargetModel());
        long historyUntil = request.getHistoryUntil() != null
                ? Math.min(request.getHistoryUntil(), state.getNextSequence()) : state.getNextSequence();
        // A re-run turn recalls its scope as it was when the original turn was asked for (memory_as_of).
        AssemblyInput.MemorySearch recall = recalled.<AssemblyInput.MemorySearch>map(found -> (query, k) ->
                found.stream().limit(k).toList())
                .orElseGet(() -> memory.memories(request.getMemoryScope(),
                        Optional.ofNullable(request.getMemoryAsOf())));
        PacketAssembler.Assembly assembly;
        try (History recent = memory.newestFirst(session, historyUntil, counter)) {
            assembly = assembler.assemble(new AssemblyInput(request, source,
                    memory.identity().orElse(IdentityDefaults.TEXT), persona, skill, memory::skills, recall,
                    () -> recent, Optional.ofNullable(state.getReanchorProtocol()), memory::tools));
        }
        CognitionPacket packet = CognitionPacket.newBuilder(assembly.packet()).setHistoryUntil(historyUntil).build();
        if (state.getReanchorProtocol() != null) {
            Meters.reanchored();
        }
        return new Turn(packet, assembly.events(), () -> {
            SessionState.Builder next = SessionState.newBuilder(state)
                    .setAwaitingAnswer(packet.getMeta().getPacketId())
                    .setEncoding(packet.getEncoding())
                    .setLastPacketTokens(packet.getTotalTokens())
                    .setReanchorSkill(null)
                    .setReanchorProtocol(null)
                    .setCouncilId(request.getCouncilId())
                    .setMemoryScope(request.getMemoryScope())
                    .setLastTurn(TurnSettings.newBuilder()
                            .setPersona(request.getPersona())
                            .setActiveSkill(request.getActiveSkill())
                            .setTaskInstructionKey(request.getTaskInstructionKey())
                            .setTargetModel(request.getTargetModel())
                            .setMtu(request.getMtu())
                            .setAutoContinueStep(request.getAutoContinueStep())
                            .build());
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
    public static PipelineEvent budgetError(CognitionRequest request, TokenBudgetException error,
                                            PipelineEvents.Source source) {
        return PipelineEvents.event(source.eventId(Events.TOKEN_BUDGET_ERROR), Events.TOKEN_BUDGET_ERROR,
                Severity.ERROR, PipelineEvents.Turn.of(request), error.getMessage(), Map.of("field", error.field(),
                        "tokens", String.valueOf(error.tokens()), "budget", String.valueOf(error.budget())),
                request.getTimestamp());
    }

    /**
     * The model's answer joins the history, counted once in the encoding of the packet it answered, and its usage
     * the session's: returns the session's usage now, which the topology publishes on session.usage. An answer that
     * called tools natively joins as the model made it: its own text and its calls, each under the pipeline's call
     * id (which its result carries) with the model's id beside it (what the model is shown), not as the text with
     * EXECUTE blocks routing read.
     */
    public AfterAnswer remember(Memory memory, LlmOutput output, Instant now, PipelineEvents.Source source) {
        if (output == null || output.getSessionId().isBlank()) {
            throw new InvalidRecordException("llm output without a session cannot join a history");
        }
        SessionState state = memory.state(output.getSessionId());
        // Counted in the encoding of the session's last packet: the one the next packet most likely uses.
        TokenCounter counter = state.getEncoding() != null ? assembler.counterForEncoding(state.getEncoding())
                : assembler.counterFor(output.getModel());
        ChatMessage answer = output.getToolCalls().isEmpty()
                ? ChatMessage.newBuilder().setRole(ChatRole.ASSISTANT).setContent(output.getText()).build()
                : ChatMessage.newBuilder()
                        .setRole(ChatRole.ASSISTANT)
                        .setContent(output.getContent() != null ? output.getContent() : "")
                        .setToolCalls(output.getToolCalls().stream().map(call -> ChatToolCall.newBuilder()
                                .setId(call.getCallId())
                                .setModelId(call.getId())
                                .setName(call.getName())
                                .setArguments(call.getArguments())
                                .build()).toList())
                        .build();
        int tokens = PromptRenderer.tokens(answer, counter);
        memory.append(output.getSessionId(), state.getNextSequence(), ChatMessage.newBuilder(answer)
                .setTokenCount(tokens)
                .build(), counter.encodingName(), output.getPacketId());
        SessionUsage usage = spend(state.getUsage(), output, state.getLastPacketTokens(), tokens);
        SessionState.Builder next = SessionState.newBuilder(state).setNextSequence(state.getNextSequence() + 1)
                .setUsage(usage);
        if (output.getPacketId() == null || !output.getPacketId().equals(state.getAwaitingAnswer())) {
            memory.state(output.getSessionId(), next.build());
            return new AfterAnswer(usage, List.of());
        }
        memory.state(output.getSessionId(), next.setAwaitingAnswer(null).setHeldResults(List.of()).build());
        List<AfterResult> released = new ArrayList<>();
        for (ToolResult held : state.getHeldResults()) {
            released.add(join(memory, memory.state(output.getSessionId()), held, now, source));
        }
        return new AfterAnswer(usage, released);
    }

    /**
     * A new turn does not wait for an answer still missing (a user's next request while the model answers): the
     * results that waited for it join the history as they are, ahead of the turn.
     */
    private SessionState joinHeld(Memory memory, String session) {
        SessionState state = memory.state(session);
        if (state.getHeldResults().isEmpty()) {
            return state;
        }
        for (ToolResult held : state.getHeldResults()) {
            state = append(memory, state, held);
        }
        state = SessionState.newBuilder(state).setAwaitingAnswer(null).setHeldResults(List.of()).build();
        memory.state(session, state);
        return state;
    }

    /** An answer's usage added to the session's: the model's own figures, else the assembly's counts. */
    private SessionUsage spend(SessionUsage before, LlmOutput output, int packetTokens, int answerTokens) {
        SessionUsage usage = before != null ? before : SessionUsage.newBuilder().build();
        boolean estimated = output.getPromptTokens() == null || output.getCompletionTokens() == null;
        return budgets.applyTo(SessionUsage.newBuilder(usage)
                .setPromptTokens(usage.getPromptTokens()
                        + (output.getPromptTokens() != null ? output.getPromptTokens() : packetTokens))
                .setCompletionTokens(usage.getCompletionTokens()
                        + (output.getCompletionTokens() != null ? output.getCompletionTokens() : answerTokens))
                .setModelCalls(usage.getModelCalls() + 1)
                .setModelTimeMs(usage.getModelTimeMs() + Math.max(0, output.getLatencyMs()))
                .setEstimatedAnswers(usage.getEstimatedAnswers() + (estimated ? 1 : 0))
                .setUpdated(output.getTimestamp()))
                .build();
    }

    /**
     * A tool result joins the history as a TOOL message paired with its call ({@code tool_call_id}), pruned like any
     * message. The result of a native call follows the answer that made it and is sent to the model as a tool
     * message answering that call; the result of an EXECUTE line answers no native call, and chat APIs refuse a tool
     * message that answers no tool call of theirs, so it is rendered as a user message (ContextPruner).
     *
     * @param source where the result was read: the id of the event it may lead to
     */
    public AfterResult remember(Memory memory, ToolResult result, Instant now, PipelineEvents.Source source) {
        if (result == null || result.getSessionId().isBlank() || result.getCallId().isBlank()) {
            throw new InvalidRecordException("a tool result without a session or a call id cannot join a history");
        }
        SessionState state = memory.state(result.getSessionId());
        if (waitsForItsAnswer(state, result)) {
            List<ToolResult> held = new ArrayList<>(state.getHeldResults());
            held.add(result);
            memory.state(result.getSessionId(), SessionState.newBuilder(state).setHeldResults(held).build());
            Meters.resultHeld();
            return AfterResult.NOTHING;
        }
        return join(memory, state, result, now, source);
    }

    /**
     * Whether a result came before the answer that made its call, which it then waits for. It can: Kafka Streams
     * takes a task's inputs in timestamp order only among the records it has fetched (and a paused partition's
     * known lag goes stale), so under load a result on tool.results may be processed before its answer on
     * llm.outputs. Joined at once, it would precede its call (an orphan to the model), and the last result would
     * start the next turn before the answer is in the history. Only a call routing made from an answer
     * ({@code call_count} > 0) waits: a call someone produced onto tool.calls has no answer to wait for. If the
     * answer never joins (it was dead-lettered), its results join at the session's next turn ({@link #joinHeld}).
     * Bounded, so a flood of results cannot grow the session's state past what its changelog takes: past the bound
     * a result joins at once, as it arrives.
     */
    private static boolean waitsForItsAnswer(SessionState state, ToolResult result) {
        if (result.getCallCount() <= 0 || result.getPacketId() == null
                || !result.getPacketId().equals(state.getAwaitingAnswer())
                || state.getHeldResults().size() >= MAX_HELD_RESULTS) {
            return false;
        }
        long chars = length(result);
        for (ToolResult held : state.getHeldResults()) {
            chars += length(held);
        }
        return chars <= MAX_HELD_CHARS;
    }

    private static long length(ToolResult result) {
        return (result.getText() == null ? 0 : result.getText().length())
                + (result.getJson() == null ? 0 : result.getJson().length())
                + (result.getError() == null ? 0 : result.getError().length());
    }

    /** The result joins the history after the session's messages, and its turn may continue (auto-continue). */
    private AfterResult join(Memory memory, SessionState state, ToolResult result, Instant now,
                             PipelineEvents.Source source) {
        String session = result.getSessionId();
        SessionState.Builder next = SessionState.newBuilder(append(memory, state, result));
        // A replayed or forked turn's next turn is on the timeline it re-runs: cognition replay sends it.
        if (autoContinueSteps == 0 || result.getPacketId() == null || result.getCallCount() <= 0
                || result.getTimeTravel() != null) {
            memory.state(session, next.build());
            return AfterResult.NOTHING;
        }
        int seen = result.getPacketId().equals(state.getResultsPacket()) ? state.getResultsSeen() + 1 : 1;
        if (seen < result.getCallCount()) {
            memory.state(session, next.setResultsPacket(result.getPacketId()).setResultsSeen(seen).build());
            return AfterResult.NOTHING;
        }
        memory.state(session, next.setResultsPacket(null).setResultsSeen(0).build());
        TurnSettings last = state.getLastTurn();
        if (last == null) {
            return AfterResult.NOTHING;
        }
        SessionUsage usage = state.getUsage();
        Optional<String> spent = usage == null ? Optional.empty() : budgets.spent(usage);
        if (spent.isPresent()) {
            return overBudget(memory, session, next.build(), result, spent.get(), now, source);
        }
        int step = last.getAutoContinueStep() + 1;
        if (step > autoContinueSteps) {
            String message = "session " + session + " took " + autoContinueSteps + " turns on its own after tool "
                    + "results (--auto-continue-steps) and stopped: its next turn waits for the agent or the council";
            return stopped(state, result, AUTO_CONTINUE_LIMIT, "-auto-continue-limit", message,
                    Map.of("steps", String.valueOf(autoContinueSteps)), Optional.empty(), now, source);
        }
        return new AfterResult(Optional.of(CognitionRequest.newBuilder()
                .setRequestId(result.getPacketId() + "-next")
                .setSessionId(session)
                .setUserPrompt(CONTINUE_PROMPT)
                .setPersona(last.getPersona())
                .setActiveSkill(last.getActiveSkill())
                .setTaskInstructionKey(TaskInstructions.AFTER_TOOL_RESULTS)
                .setTargetModel(last.getTargetModel())
                .setMtu(last.getMtu())
                .setParentId(result.getPacketId())
                .setAutoContinueStep(step)
                .setTimestamp(now)
                .build()), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** The result's TOOL message appended to the history: the session's state with its next sequence after it. */
    private SessionState append(Memory memory, SessionState state, ToolResult result) {
        TokenCounter counter = state.getEncoding() != null ? assembler.counterForEncoding(state.getEncoding())
                : assembler.counterFor(DEFAULT_MODEL);
        String content = ToolMessages.content(result);
        memory.append(result.getSessionId(), state.getNextSequence(), ChatMessage.newBuilder()
                .setRole(ChatRole.TOOL)
                .setContent(content)
                .setToolCallId(result.getCallId())
                .setName(result.getTool())
                .setTokenCount(counter.count(content))
                .build(), counter.encodingName(), result.getPacketId());
        return SessionState.newBuilder(state).setNextSequence(state.getNextSequence() + 1).build();
    }

    /**
     * A session that has spent a budget does not continue on its own. The first time, the council is told with the
     * figures, an event says so, and the session's usage records it; after that the loop just stops.
     */
    private AfterResult overBudget(Memory memory, String session, SessionState state, ToolResult result,
                                   String spent, Instant now, PipelineEvents.Source source) {
        SessionUsage usage = state.getUsage();
        if (usage.getOverBudget() != null) {
            return AfterResult.NOTHING;
        }
        String message = "session " + session + " has spent " + spent + " (" + SessionBudgets.figures(usage)
                + ") and no longer continues on its own: its next turn waits for the agent or the council";
        SessionUsage stopped = budgets.applyTo(SessionUsage.newBuilder(usage).setOverBudget(spent).setUpdated(now))
                .build();
        memory.state(session, SessionState.newBuilder(state).setUsage(stopped).build());
        Map<String, String> figures = Map.of("prompt_tokens", String.valueOf(usage.getPromptTokens()),
                "completion_tokens", String.valueOf(usage.getCompletionTokens()),
                "model_calls", String.valueOf(usage.getModelCalls()),
                "model_time_ms", String.valueOf(usage.getModelTimeMs()), "budget", spent);
        return stopped(state, result, SESSION_BUDGET, "-session-budget", message, figures, Optional.of(stopped), now,
                source);
    }

    /**
     * A session that stops continuing on its own: one escalation to its council, its id after the turn and
     * {@code idSuffix} (a redelivered result raises the same one), and the event that says why.
     */
    private static AfterResult stopped(SessionState state, ToolResult result, String eventType, String idSuffix,
                                       String message, Map<String, String> attributes, Optional<SessionUsage> usage,
                                       Instant now, PipelineEvents.Source source) {
        return new AfterResult(Optional.empty(), Optional.of(CouncilMessage.newBuilder()
                .setMsgId(result.getPacketId() + idSuffix)
                .setParentId(result.getPacketId())
                .setCouncilId(CouncilIds.orDefault(state.getCouncilId()))
                .setTimestamp(now)
                .setSender(CouncilSettings.ASSEMBLY_SENDER)
                .setRole("observer")
                .setType(CouncilMessageType.ESCALATION)
                .setRiskLevel(RiskLevel.HIGH)
                .setContent(message + ". Prime's attention needed (a runaway tool loop?).")
                .setSessionId(result.getSessionId())
                .build()),
                Optional.of(PipelineEvents.event(source.eventId(eventType), eventType, Severity.WARN,
                        PipelineEvents.Turn.of(result), message, attributes, now)), usage);
    }

    /**
     * A message of an imported conversation joins the history after what the session already has, counted once in
     * the encoding of the session's last packet (the default model's for a new session; a packet in another
     * encoding recounts it). Its tool calls and results pair as in any history: the pruner repairs what does not.
     */
    public void importMessage(Memory memory, HistoryImport imported) {
        if (imported == null || imported.getSessionId().isBlank()) {
            throw new InvalidRecordException("a history import without a session cannot join a history");
        }
        ChatMessage message = imported.getMessage();
        if (!message.getToolCalls().isEmpty() && message.getRole() != ChatRole.ASSISTANT) {
            throw new InvalidRecordException("a " + message.getRole() + " message cannot call tools; only an "
                    + "ASSISTANT message does");
        }
        String session = imported.getSessionId();
        SessionState state = memory.state(session);
        TokenCounter counter = state.getEncoding() != null ? assembler.counterForEncoding(state.getEncoding())
                : assembler.counterFor(DEFAULT_MODEL);
        memory.append(session, state.getNextSequence(), ChatMessage.newBuilder(message)
                .setTokenCount(PromptRenderer.tokens(message, counter)).build(), counter.encodingName(), null);
        memory.state(session, SessionState.newBuilder(state).setNextSequence(state.getNextSequence() + 1).build());
    }

    /** A denied call puts the skill's protocol in front of the model on the session's next packet. */
    public void reanchor(Memory memory, ToolDecision decision) {
        if (decision == null) {
            // Assembly is the only reader of tool.decisions, so a tombstone there is its to dead-letter.
            throw new InvalidRecordException("tool decision is null (a tombstone is not a decision)");
        }
        // Approvals, and denials of calls without a session or a protocol, have nothing to re-anchor.
        String session = decision.getCall().getSessionId();
        if (decision.getVerdict() != Verdict.DENIED || decision.getProtocol() == null || session == null
                || session.isBlank()) {
            return;
        }
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

    /**
     * No persona is the default one, which falls back to its built-in text when none is loaded; a persona nobody
     * loaded is refused with the names that are, never swapped for the default behind the caller's back.
     */
    private static Persona persona(Memory memory, CognitionRequest request) {
        String name = request.getPersona();
        if (name == null) {
            return memory.persona(Personas.DEFAULT).orElseGet(Personas::defaultPersona);
        }
        return memory.persona(name).orElseThrow(() -> {
            TreeSet<String> known = new TreeSet<>(memory.personaNames());
            known.add(Personas.DEFAULT);
            int more = known.size() - MAX_PERSONAS_NAMED;
            return new InvalidRecordException("unknown persona '" + name + "'; known: "
                    + known.stream().limit(MAX_PERSONAS_NAMED).toList() + (more > 0 ? " and " + more + " more" : "")
                    + " (leave persona out for '" + Personas.DEFAULT + "', or load it with `cognition persona load`)");
        });
    }
}
