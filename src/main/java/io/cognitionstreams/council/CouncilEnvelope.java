package io.cognitionstreams.council;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.RiskLevel;

/**
 * The rules of the seed 003 section 8.1 envelope on council.messages. A message that breaks one is dead-lettered
 * with the rule and never reaches the council's state: no clock move, no vote, no escalation.
 */
public final class CouncilEnvelope {

    /**
     * What each non-role sender may send: the council its clock ticks and escalations, routing its escalations and
     * notes, the AutoFix loop and the assembly their escalations, the gatekeeper its proposals (calls waiting for
     * approval).
     */
    private static final Set<CouncilMessageType> COUNCIL_TYPES =
            Set.of(CouncilMessageType.HEARTBEAT, CouncilMessageType.ESCALATION);
    private static final Set<CouncilMessageType> ROUTER_TYPES =
            Set.of(CouncilMessageType.ESCALATION, CouncilMessageType.INFO);

    /** A council message is a note, a vote or a plan to vote on; what it leads to quotes it. */
    public static final int MAX_CONTENT_CHARS = 64 * 1024;

    private CouncilEnvelope() {
    }

    /**
     * @param key the record key, which must be the message's council_id (the topic is keyed by council)
     * @param now the wall clock, which the message's timestamp may not lead by more than the settings allow
     */
    public static CouncilMessage requireValid(String key, CouncilMessage message, CouncilSettings settings,
                                              Instant now) {
        if (message == null) {
            throw new InvalidRecordException("council message is null (tombstones are not messages)");
        }
        requireText("msg_id", message.getMsgId());
        CouncilIds.problem(message.getCouncilId()).ifPresent(problem -> {
            throw new InvalidRecordException(problem);
        });
        if (!message.getCouncilId().equals(key)) {
            throw new InvalidRecordException("record key '" + key + "' is not the council_id '"
                    + message.getCouncilId() + "': council.messages is keyed by council_id");
        }
        requireOptionalText("parent_id", message.getParentId());
        requireOptionalText("session_id", message.getSessionId());
        if (message.getTimestamp() == null || message.getTimestamp().toEpochMilli() <= 0) {
            throw new InvalidRecordException("timestamp " + message.getTimestamp() + " is not after the epoch");
        }
        Duration ahead = Duration.between(now, message.getTimestamp());
        if (ahead.compareTo(settings.maxClockSkew()) > 0) {
            throw new InvalidRecordException("timestamp " + message.getTimestamp() + " is " + ahead + " ahead of "
                    + "the clock (" + now + "), more than the " + settings.maxClockSkew() + " allowed: the sender's "
                    + "clock is wrong, and the council's clock, which never goes back, would time out every other "
                    + "role");
        }
        requireText("role", message.getRole());
        requireSender(message, settings);
        Double confidence = message.getConfidence();
        if (confidence != null && !(confidence >= 0.0 && confidence <= 1.0)) {
            throw new InvalidRecordException("confidence " + confidence + " is outside 0..1");
        }
        if (message.getRiskLevel() == null || message.getRiskLevel() == RiskLevel.UNKNOWN) {
            throw new InvalidRecordException("risk_level is not low, med or high");
        }
        if (message.getContent().length() > MAX_CONTENT_CHARS) {
            throw new InvalidRecordException("content has " + message.getContent().length()
                    + " characters, over the limit of " + MAX_CONTENT_CHARS);
        }
        requireTypeFields(message);
        return message;
    }

    private static void requireSender(CouncilMessage message, CouncilSettings settings) {
        String sender = message.getSender();
        requireText("sender", sender);
        CouncilMessageType type = message.getType();
        if (type == null) {
            throw new InvalidRecordException("type is missing");
        }
        Set<CouncilMessageType> allowed = switch (sender) {
            case CouncilSettings.COUNCIL_SENDER -> COUNCIL_TYPES;
            case CouncilSettings.ROUTER_SENDER -> ROUTER_TYPES;
            case CouncilSettings.AUTOFIX_SENDER, CouncilSettings.ASSEMBLY_SENDER ->
                    Set.of(CouncilMessageType.ESCALATION);
            case CouncilSettings.GATEKEEPER_SENDER -> Set.of(CouncilMessageType.PROPOSAL);
            default -> {
                if (!settings.roles().contains(sender)) {
                    throw new InvalidRecordException("sender '" + sender + "' is not a council role "
                            + settings.roles() + ", '" + CouncilSettings.ROUTER_SENDER + "', '"
                            + CouncilSettings.AUTOFIX_SENDER + "', '" + CouncilSettings.ASSEMBLY_SENDER + "', '"
                            + CouncilSettings.GATEKEEPER_SENDER + "' or '" + CouncilSettings.COUNCIL_SENDER + "'");
                }
                yield Set.of(CouncilMessageType.values());
            }
        };
        if (!allowed.contains(type)) {
            throw new InvalidRecordException("sender '" + sender + "' is not a council role and cannot send "
                    + type + " (only " + allowed.stream().map(Enum::name).sorted().toList() + ")");
        }
    }

    private static void requireTypeFields(CouncilMessage message) {
        CouncilMessageType type = message.getType();
        if (type == CouncilMessageType.VOTE) {
            requireText("proposal_id of a VOTE", message.getProposalId());
            if (message.getVote() == null) {
                throw new InvalidRecordException("a VOTE needs vote: yes, no or abstain");
            }
            return;
        }
        if (message.getVote() != null) {
            throw new InvalidRecordException("vote is set on a " + type + "; only a VOTE carries one");
        }
        if (type == CouncilMessageType.PROPOSAL) {
            requireText("content of a PROPOSAL", message.getContent());
            if (CouncilSettings.GATEKEEPER_SENDER.equals(message.getSender())) {
                // Its decision goes to the session's partition of council.decisions.by-session, where the call waits.
                requireText("session_id of the gatekeeper's PROPOSAL", message.getSessionId());
            }
            // A proposal is known by its msg_id; a different proposal_id would give it two names.
            if (message.getProposalId() != null && !message.getProposalId().equals(message.getMsgId())) {
                throw new InvalidRecordException("a PROPOSAL is identified by its msg_id '" + message.getMsgId()
                        + "'; its proposal_id '" + message.getProposalId() + "' must be empty or the same");
            }
        } else if (type == CouncilMessageType.ESCALATION) {
            requireText("content of an ESCALATION", message.getContent());
        }
    }

    private static void requireText(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidRecordException(field + " is empty");
        }
    }

    private static void requireOptionalText(String field, String value) {
        if (value != null && value.isBlank()) {
            throw new InvalidRecordException(field + " is blank: leave it out (null) or give it a value");
        }
    }
}
