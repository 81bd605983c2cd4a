package io.cognitionstreams.timetravel;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.cognitionstreams.assembly.history.ContextPruner;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.council.CouncilIds;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.Severity;

/**
 * The events of the AutoFix loop on cognition.events, in seed 001's meaning: {@code autofix/attempt} when a retry
 * starts, {@code autofix/travel} when it goes back to the previous checkpoint, {@code autofix/prune} when the
 * pruned history (one recovery lesson) is applied to the retry's packet, {@code autofix/recover} when a retry
 * passes its contract, {@code autofix/fail} when the retries are used up. Each event's id is the position of the
 * answer (or retry packet) it follows from and its type ({@link PipelineEvents.Source}): two answers to one packet
 * give two sets of events, and a reprocessed answer the same ids again.
 */
public final class AutoFixEvents {

    public static final String STAGE_CONTRACT_FAILED = "STAGE_CONTRACT_FAILED";
    public static final String ATTEMPT = "autofix/attempt";
    public static final String PRUNE = "autofix/prune";
    public static final String TRAVEL = "autofix/travel";
    public static final String RECOVER = "autofix/recover";
    public static final String FAIL = "autofix/fail";
    /** How the council tells an AutoFix escalation from routing's. */
    public static final String SENDER = CouncilSettings.AUTOFIX_SENDER;

    private AutoFixEvents() {
    }

    /** A broken contract; {@code next} says what follows: retry, escalate or fail. */
    public static PipelineEvent contractFailed(LlmOutput output, Checkpoint packet, StageContracts.Result result,
                                               String next, PipelineEvents.Source source) {
        Map<String, String> attributes = attributes(packet);
        attributes.put("reason", result.reason());
        attributes.put("next", next);
        attributes.put("output_id", output.getOutputId());
        result.confidence().ifPresent(confidence -> attributes.put("confidence", String.valueOf(confidence)));
        return event(STAGE_CONTRACT_FAILED, next.equals("retry") ? Severity.WARN : Severity.ERROR, source, output,
                packet.getStage() + " contract broken: " + result.reason(), attributes, output.getTimestamp());
    }

    public static PipelineEvent attempt(LlmOutput output, Checkpoint failed, CognitionRequest retry, int maxRetries,
                                        PipelineEvents.Source source) {
        Map<String, String> attributes = attributes(failed);
        attributes.put("attempt", String.valueOf(retry.getRetryCount()));
        attributes.put("max_retries", String.valueOf(maxRetries));
        attributes.put("reason", retry.getRetryReason());
        return event(ATTEMPT, Severity.WARN, source, output,
                "retry " + retry.getRetryCount() + " of " + maxRetries + " after: " + retry.getRetryReason(),
                attributes, output.getTimestamp());
    }

    /** Back to {@code to} (the failed packet's checkpoint): the retry sees the history before the failed turn. */
    public static PipelineEvent travel(LlmOutput output, Checkpoint to, CognitionRequest retry,
                                       PipelineEvents.Source source) {
        Map<String, String> attributes = attributes(to);
        attributes.put("attempt", String.valueOf(retry.getRetryCount()));
        attributes.put("checkpoint", Checkpoints.key(to));
        attributes.put("checkpoint_sequence", String.valueOf(to.getSequence()));
        attributes.put("history_until", String.valueOf(retry.getHistoryUntil()));
        attributes.put("branch", Checkpoints.retryBranch(retry.getRetryCount()));
        return event(TRAVEL, Severity.INFO, source, output,
                "travelled back to checkpoint " + to.getSequence() + " (history before sequence "
                        + retry.getHistoryUntil() + ") and forked branch "
                        + Checkpoints.retryBranch(retry.getRetryCount()), attributes, output.getTimestamp());
    }

    /** The retry's packet as the assembly pruned it: working memory kept, tool results with their calls. */
    public static PipelineEvent prune(CognitionPacket retryPacket, Checkpoint checkpoint,
                                      PipelineEvents.Source source) {
        List<ChatMessage> history = retryPacket.getPayload().getHistory();
        List<ChatMessage> lessons = history.stream().filter(ContextPruner::isRecoveryLesson).toList();
        Map<String, String> attributes = attributes(checkpoint);
        attributes.put("attempt", String.valueOf(checkpoint.getRetryCount()));
        attributes.put("history_until", checkpoint.getHistoryRef());
        attributes.put("history_messages", String.valueOf(history.size()));
        attributes.put("history_tokens", String.valueOf(retryPacket.getFieldTokens().getOrDefault("history", 0)));
        attributes.put("tool_results", String.valueOf(history.stream()
                .filter(message -> message.getRole() == ChatRole.TOOL).count()));
        attributes.put("recovery_lessons", String.valueOf(lessons.size()));
        if (!lessons.isEmpty()) {
            // The lesson's second line: "Previous attempt failed: <reason>".
            attributes.put("lesson", lessons.get(lessons.size() - 1).getContent().lines().skip(1).findFirst()
                    .orElse(""));
        }
        boolean one = lessons.size() == 1;
        return PipelineEvents.event(source.eventId(PRUNE), PRUNE, one ? Severity.INFO : Severity.WARN,
                PipelineEvents.Turn.of(retryPacket), one
                        ? "retry " + checkpoint.getRetryCount() + " sees " + history.size()
                        + " pruned history messages ending in one recovery lesson"
                        : "retry " + checkpoint.getRetryCount() + " packet carries " + lessons.size()
                        + " recovery lessons, expected one (history cut to its budget?)",
                attributes, retryPacket.getMeta().getTimestamp());
    }

    public static PipelineEvent recover(LlmOutput output, Checkpoint packet, PipelineEvents.Source source) {
        Map<String, String> attributes = attributes(packet);
        attributes.put("attempts", String.valueOf(packet.getRetryCount()));
        attributes.put("checkpoint", Checkpoints.key(packet));
        return event(RECOVER, Severity.INFO, source, output,
                packet.getStage() + " passed on retry " + packet.getRetryCount() + " (branch "
                        + packet.getBranchId() + ")", attributes, output.getTimestamp());
    }

    public static PipelineEvent fail(LlmOutput output, Checkpoint packet, String reason, int maxRetries,
                                     PipelineEvents.Source source) {
        Map<String, String> attributes = attributes(packet);
        attributes.put("attempts", String.valueOf(packet.getRetryCount()));
        attributes.put("max_retries", String.valueOf(maxRetries));
        attributes.put("reason", reason);
        attributes.put("escalation", escalationId(output));
        return event(FAIL, Severity.ERROR, source, output,
                packet.getStage() + " still failing after " + packet.getRetryCount() + " of " + maxRetries
                        + " retries: " + reason, attributes, output.getTimestamp());
    }

    /** Seed 003 section 8.4: risk high for Prime's attention, for the council the output's session works with. */
    public static CouncilMessage escalation(LlmOutput output, Checkpoint packet, String content,
                                            Optional<Double> confidence) {
        return CouncilMessage.newBuilder()
                .setMsgId(escalationId(output))
                .setParentId(output.getPacketId())
                .setCouncilId(CouncilIds.orDefault(output.getCouncilId()))
                .setTimestamp(output.getTimestamp())
                .setSender(SENDER)
                .setRole("recovery")
                .setType(CouncilMessageType.ESCALATION)
                .setConfidence(confidence.orElse(null))
                .setRiskLevel(RiskLevel.HIGH)
                .setContent(packet.getStage() + " stage of session " + output.getSessionId() + " (request "
                        + output.getRequestId() + ", packet " + output.getPacketId() + "): " + content
                        + ". Prime's attention needed.")
                .setSessionId(output.getSessionId())
                .setTimeTravel(output.getTimeTravel())
                .setOriginSessionId(output.getOriginSessionId())
                .build();
    }

    private static String escalationId(LlmOutput output) {
        return output.getPacketId() + "-autofix-escalation";
    }

    private static Map<String, String> attributes(Checkpoint checkpoint) {
        Map<String, String> attributes = new TreeMap<>();
        attributes.put("stage", checkpoint.getStage());
        attributes.put("retry_count", String.valueOf(checkpoint.getRetryCount()));
        return attributes;
    }

    private static PipelineEvent event(String type, Severity severity, PipelineEvents.Source source,
                                       LlmOutput output, String message, Map<String, String> attributes,
                                       Instant timestamp) {
        return PipelineEvents.event(source.eventId(type), type, severity, PipelineEvents.Turn.of(output), message,
                attributes, timestamp);
    }
}
