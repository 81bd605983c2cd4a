package io.cognitionstreams.gatekeeper;

import java.time.Instant;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.council.ProposalContext;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.signing.Sha256;

/**
 * The PROPOSAL the gatekeeper puts to a council for a call that needs approval: the call as the roles see it, then
 * the protocol of its skill and the session's recent turns ({@link ProposalContext}), so a role votes knowing what
 * the session was asked and under which rules. Everything shown is redacted for display (as on channel.shell), and
 * the SHA-256 of the exact arguments is inside, so the digest the council's decision carries (of this content) binds
 * the decision to the very arguments that will run, and the proposer's signature covers the context too.
 */
public final class Proposals {

    /** Role the gatekeeper acts in on council.messages. */
    static final String ROLE = "gatekeeper";
    /** Shown arguments longer than this are cut for display; the digest still covers every byte. */
    static final int SHOWN_ARGUMENTS_CHARS = 4000;
    /** Characters of the skill's protocol shown: a vote prompt has a few thousand tokens for all of it. */
    static final int SHOWN_PROTOCOL_CHARS = 2500;

    private static final ObjectMapper JSON = new ObjectMapper();

    private Proposals() {
    }

    /**
     * A proposal's id: derived from the session and the call id, so a call read again proposes the same id (and the
     * council refuses it as made already), and two sessions' calls of the same id never share a proposal.
     */
    public static String id(String session, String callId) {
        return "call-" + Sha256.hex(session + "\n" + callId).substring(0, 16);
    }

    /** The SHA-256 (hex) of the call's exact arguments, as they will run. */
    public static String argumentsDigest(ToolCall call) {
        return Sha256.hex(call.getArguments());
    }

    /**
     * The proposal for {@code call}, which the rule says needs approval.
     *
     * @param at       the proposal's timestamp: when the gatekeeper asked (its time to live runs from there)
     * @param protocol the protocol of the call's skill, when the registry knows it
     * @param turns    the session's recent turns ({@link RecentTurns}), when a packet of the session was seen
     */
    static CouncilMessage proposal(ToolCall call, String council, ApprovalRule.Need need, Redactor redactor,
                                   Instant at, Optional<String> protocol, Optional<String> turns) {
        ProposalContext context = new ProposalContext(content(call, need, shown(call, redactor)),
                protocol.map(text -> cut(redactor.redact(text.strip()).text(), SHOWN_PROTOCOL_CHARS, "")),
                turns.filter(text -> !text.isBlank()).map(text -> redactor.redact(text).text()));
        return CouncilMessage.newBuilder()
                .setMsgId(id(call.getSessionId(), call.getCallId()))
                .setCouncilId(council)
                .setTimestamp(at)
                .setSender(CouncilSettings.GATEKEEPER_SENDER)
                .setRole(ROLE)
                .setType(CouncilMessageType.PROPOSAL)
                .setRiskLevel(need.risk())
                .setContent(context.content())
                .setSessionId(call.getSessionId())
                .setTimeTravel(call.getTimeTravel())
                .setOriginSessionId(call.getOriginSessionId())
                .build();
    }

    /** What the roles and people read: one fact a line, so a vote prompt and `council pending` can quote it. */
    static String content(ToolCall call, ApprovalRule.Need need, String shownArguments) {
        return "Tool call waiting for approval\n"
                + "tool: " + call.getTool() + "\n"
                + "skill: " + (call.getSkill() == null ? "(none)" : call.getSkill()) + "\n"
                + "caller: " + call.getCaller() + "\n"
                + "session: " + call.getSessionId() + "\n"
                + "call: " + call.getCallId() + "\n"
                + "risk: " + need.risk() + "\n"
                + "why: " + need.reason() + "\n"
                + "arguments (redacted for display): " + shownArguments + "\n"
                + "arguments sha256: " + argumentsDigest(call);
    }

    /** The shell command, or the arguments, scrubbed for people (addresses too) and cut to a readable length. */
    private static String shown(ToolCall call, Redactor redactor) {
        String text = command(call.getArguments());
        return cut(redactor.redact(text).text().replace("\n", " ⏎ "), SHOWN_ARGUMENTS_CHARS, ", in the digest");
    }

    private static String cut(String text, int chars, String note) {
        return text.length() <= chars ? text
                : text.substring(0, chars) + "… (" + (text.length() - chars) + " more characters" + note + ")";
    }

    /** A shell call's command on its own, as channel.shell shows it; any other call's arguments as they are. */
    private static String command(String arguments) {
        try {
            JsonNode json = JSON.readTree(arguments);
            JsonNode command = json == null ? null : json.get("command");
            return command != null && command.isTextual() && json.size() == 1 ? command.textValue() : arguments;
        } catch (JsonProcessingException e) {
            return arguments;
        }
    }
}
