package io.cognitionstreams.timetravel;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.apache.avro.specific.SpecificRecord;

import io.cognitionstreams.assembly.RequestValidator;
import io.cognitionstreams.assembly.TaskInstructions.Stage;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.LlmOutput;

/**
 * Checkpoints and seed 001's AutoFix loop over a {@link Memory}: every packet becomes a checkpoint; every answer is
 * judged by its stage's contract (seed 003 section 6); a broken contract travels back to the failed packet's
 * checkpoint and asks the original request again, forked from there, at most {@link AutoFixPolicy#maxRetries()}
 * times, then (or when a Refine confidence is below 0.3) escalates to the council. Plain Java:
 * {@link TimeTravelTopology} only wires topics and stores to it.
 */
public final class AutoFixLoop {

    /** The checkpoints, and the original requests kept so a failed answer can be asked again. */
    public interface Memory {
        Optional<Checkpoint> latest(String session);

        Optional<Checkpoint> ofPacket(String session, String packetId);

        int nextSequence(String session);

        void put(Checkpoint checkpoint);

        void keep(CognitionRequest request, long timestamp);

        Optional<CognitionRequest> original(String session, String requestId);

        /** The request's last attempt is judged: nothing will ask for it again. */
        void forget(String session, String requestId);
    }

    /** A record and its key: a checkpoint under its own, a retry under its session, an escalation its council's. */
    public record Keyed(String key, SpecificRecord value) {
    }

    private final StageContracts contracts;
    private final AutoFixPolicy policy;
    private final Consumer<String> unchecked;

    /**
     * @param unchecked told of each answer that has no checkpoint (a packet written before this app ran, or by
     *                  another app), which is not checked against a contract: counted, not an error
     */
    public AutoFixLoop(StageContracts contracts, AutoFixPolicy policy, Consumer<String> unchecked) {
        this.contracts = contracts;
        this.policy = policy;
        this.unchecked = unchecked;
    }

    /**
     * Keeps an original request (not a retry) so a failed answer can be asked again. Only valid ones: the assembly
     * dead-letters the others, and an oversized one would not even fit the store's changelog.
     */
    public void keep(Memory memory, CognitionRequest request, long timestamp) {
        RequestValidator.requireValid(request);
        if (request.getRetryCount() == 0) {
            memory.keep(request, timestamp);
        }
    }

    /** One checkpoint per packet; a retry's packet also reports the pruning the assembly applied to it. */
    public List<Keyed> checkpoint(Memory memory, CognitionPacket packet, Checkpoints.Position at) {
        if (packet == null) {
            return List.of();
        }
        String session = packet.getSessionId();
        boolean retry = packet.getMeta().getRetryCount() != null && packet.getMeta().getRetryCount() > 0;
        // A retry follows the checkpoint it travelled back to: the failed packet's, its parent.
        Optional<Checkpoint> previous = retry ? memory.ofPacket(session, packet.getMeta().getParentId())
                : memory.latest(session);
        String stage = contracts.stageOf(packet.getHeader().getTaskInstructionKey()).map(Stage::name)
                .orElse(Checkpoints.UNKNOWN_STAGE);
        Checkpoint checkpoint = Checkpoints.forPacket(packet, memory.nextSequence(session), stage, at, previous);
        memory.put(checkpoint);
        List<Keyed> out = new ArrayList<>();
        out.add(new Keyed(Checkpoints.key(checkpoint), checkpoint));
        if (retry) {
            out.add(new Keyed(session, AutoFixEvents.prune(packet, checkpoint, at.source())));
        }
        return out;
    }

    /** Judges an answer by its stage's contract, and runs the AutoFix loop when it fails. */
    public List<Keyed> judge(Memory memory, LlmOutput output, Checkpoints.Position at) {
        if (output == null) {
            return List.of();
        }
        String session = output.getSessionId();
        Optional<Checkpoint> found = memory.ofPacket(session, output.getPacketId());
        if (found.isEmpty()) {
            unchecked.accept("packet " + output.getPacketId() + " of session " + session);
            return List.of();
        }
        Checkpoint packet = found.get();
        StageContracts.Result result = packet.getStage().equals(Checkpoints.UNKNOWN_STAGE)
                ? new StageContracts.Result(StageContracts.Outcome.NONE, "", Optional.empty())
                : StageContracts.check(Stage.valueOf(packet.getStage()), output.getText());
        Optional<CognitionRequest> original = memory.original(session, output.getRequestId());
        List<Keyed> out = new ArrayList<>();
        switch (result.outcome()) {
            case NONE -> memory.forget(session, output.getRequestId());
            case PASSED -> {
                if (packet.getStage().equals(Stage.VERIFY.name())) {
                    Checkpoint verified = Checkpoints.verified(packet, memory.nextSequence(session), at);
                    memory.put(verified);
                    out.add(new Keyed(Checkpoints.key(verified), verified));
                }
                if (packet.getRetryCount() > 0) {
                    out.add(new Keyed(session, AutoFixEvents.recover(output, packet, at.source())));
                }
                memory.forget(session, output.getRequestId());
            }
            case ESCALATE -> {
                out.add(new Keyed(session, AutoFixEvents.contractFailed(output, packet, result, "escalate",
                        at.source())));
                out.add(escalation(output, packet, result.reason(), result));
                memory.forget(session, output.getRequestId());
            }
            case RETRY -> {
                if (policy.mayRetry(packet.getRetryCount()) && original.isPresent()) {
                    // Attempt, travel back to the failed packet's checkpoint, and send the retry forked from there.
                    CognitionRequest retry = policy.retry(original.get(), packet, result.reason(),
                            output.getTimestamp());
                    out.add(new Keyed(session, AutoFixEvents.contractFailed(output, packet, result, "retry",
                            at.source())));
                    out.add(new Keyed(session, AutoFixEvents.attempt(output, packet, retry, policy.maxRetries(),
                            at.source())));
                    out.add(new Keyed(session, AutoFixEvents.travel(output, packet, retry, at.source())));
                    out.add(new Keyed(retry.getSessionId(), retry));
                } else {
                    String reason = original.isPresent() ? result.reason() : result.reason()
                            + " (the original request is no longer kept, so it cannot be retried)";
                    out.add(new Keyed(session, AutoFixEvents.contractFailed(output, packet, result, "fail",
                            at.source())));
                    out.add(new Keyed(session, AutoFixEvents.fail(output, packet, reason, policy.maxRetries(),
                            at.source())));
                    out.add(escalation(output, packet, "still failing after " + packet.getRetryCount() + " of "
                            + policy.maxRetries() + " retries: " + reason, result));
                    memory.forget(session, output.getRequestId());
                }
            }
        }
        return out;
    }

    private static Keyed escalation(LlmOutput output, Checkpoint packet, String content,
                                    StageContracts.Result result) {
        CouncilMessage escalation = AutoFixEvents.escalation(output, packet, content, result.confidence());
        return new Keyed(escalation.getCouncilId(), escalation);
    }
}
