package io.cognitionstreams.assembly;

import io.cognitionstreams.council.CouncilIds;
import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.governance.MemoryScopes;
import io.cognitionstreams.schema.CognitionRequest;

/** Rules a cognition request must meet before it is assembled; a broken one is dead-lettered with the rule. */
public final class RequestValidator {

    /** Larger prompts are refused outright: no MTU in use could hold them, and they would bloat every store. */
    public static final int MAX_PROMPT_CHARS = 256 * 1024;
    public static final int MIN_MTU = 256;
    public static final int MAX_MTU = 2_000_000;

    private RequestValidator() {
    }

    public static CognitionRequest requireValid(CognitionRequest request) {
        if (request == null) {
            throw new InvalidRecordException("cognition request is null (tombstones are not requests)");
        }
        requireText("request_id", request.getRequestId());
        requireText("session_id", request.getSessionId());
        requireText("target_model", request.getTargetModel());
        requireText("task_instruction_key", request.getTaskInstructionKey());
        if (request.getUserPrompt().isBlank()) {
            throw new InvalidRecordException("user_prompt is empty");
        }
        if (request.getUserPrompt().length() > MAX_PROMPT_CHARS) {
            throw new InvalidRecordException("user_prompt has " + request.getUserPrompt().length()
                    + " characters, over the limit of " + MAX_PROMPT_CHARS);
        }
        Integer mtu = request.getMtu();
        if (mtu != null && (mtu < MIN_MTU || mtu > MAX_MTU)) {
            throw new InvalidRecordException("mtu " + mtu + " is outside " + MIN_MTU + ".." + MAX_MTU);
        }
        if (request.getRetryCount() < 0) {
            throw new InvalidRecordException("retry_count " + request.getRetryCount() + " is negative");
        }
        // Refused here rather than by the council, where the session's first escalation would be dead-lettered.
        if (request.getCouncilId() != null) {
            CouncilIds.problem(request.getCouncilId()).ifPresent(problem -> {
                throw new InvalidRecordException(problem + " (leave council_id out for council "
                        + CouncilIds.DEFAULT + ")");
            });
        }
        if (request.getMemoryScope() != null) {
            MemoryScopes.problem(request.getMemoryScope()).ifPresent(problem -> {
                throw new InvalidRecordException(problem + " (leave memory_scope out for the session's own, "
                        + MemoryScopes.ofSession(request.getSessionId()) + ")");
            });
        }
        return request;
    }

    private static void requireText(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidRecordException(field + " is empty");
        }
    }
}
