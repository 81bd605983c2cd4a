package io.cognitionstreams.executor;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;

/**
 * Runs one approved call where its {@link ToolTarget} says, with the call's exact arguments as the gatekeeper
 * approved and signed them (never channel.shell's copy, which is scrubbed for people to read), and writes up its
 * {@link ToolResult}. Plain Java; thread-safe, since calls of different sessions run in parallel.
 */
public final class ToolExecution {

    /** The shell runner as the executor uses it: one command in a session's working directory. */
    @FunctionalInterface
    public interface ShellTool {
        Outcome run(String sessionId, String command);
    }

    /**
     * Strict where a lenient reading would run something other than the text that was approved and signed: text
     * after the object, or a field given twice (which one counts depends on who reads it), is refused.
     */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    /** The tag redaction leaves where a secret was. */
    private static final String REDACTED = "[REDACTED:";
    private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {
    };

    private final McpServers servers;
    private final Optional<ShellTool> shell;
    private final Duration callTimeout;

    /**
     * @param shell       the shell runner, when the operator turned it on
     * @param callTimeout the longest a call may run, the shell's included: the executor plans its batches by it
     */
    public ToolExecution(McpServers servers, Optional<ShellTool> shell, Duration callTimeout) {
        this.servers = servers;
        this.shell = shell;
        this.callTimeout = callTimeout;
    }

    public ToolTarget target(String tool) {
        return ToolTarget.of(tool, servers::serves, shell.isPresent());
    }

    public Duration callTimeout() {
        return callTimeout;
    }

    /**
     * Whether a crash during the call lets it run again: the skill declares the tool read-only or idempotent
     * (signed into the decision), or the MCP server hints so.
     */
    public boolean retrySafe(ToolDecision decision, ToolTarget target) {
        if (decision.getRetrySafe()) {
            return true;
        }
        return target instanceof ToolTarget.Mcp mcp
                && servers.offered(mcp.server(), mcp.tool()).map(McpServers.OfferedTool::retrySafe).orElse(false);
    }

    /** What ran it, for the result and the ledger: {@code mcp:<server>}, {@code shell}, or none. */
    public static String executor(ToolTarget target) {
        if (target instanceof ToolTarget.Mcp mcp) {
            return "mcp:" + mcp.server();
        }
        return target instanceof ToolTarget.Shell ? "shell" : "executor";
    }

    public Outcome run(ToolCall call, ToolTarget target) {
        if (target instanceof ToolTarget.Unserved unserved) {
            return Outcome.notRun("not run: " + unserved.error());
        }
        JsonNode arguments;
        try {
            arguments = JSON.readTree(call.getArguments());
        } catch (JsonProcessingException e) {
            return Outcome.notRun("not run: the arguments are not JSON (" + e.getOriginalMessage() + ")");
        }
        if (arguments == null || !arguments.isObject()) {
            return Outcome.notRun("not run: the arguments must be a JSON object");
        }
        if (call.getArguments().contains(REDACTED)) {
            // A secret was scrubbed out on the way here (docs/redaction.md): what is left would run wrong.
            return Outcome.notRun("not run: the arguments held a secret, which was redacted before approval; pass "
                    + "secrets by reference (an environment variable only the executor defines), not in the call");
        }
        if (target instanceof ToolTarget.Mcp mcp) {
            return servers.call(mcp.server(), mcp.tool(), JSON.convertValue(arguments, OBJECT));
        }
        if (target instanceof ToolTarget.Shell) {
            JsonNode command = arguments.get("command");
            if (command == null || !command.isTextual() || command.textValue().isBlank()) {
                return Outcome.notRun("not run: shell.run takes {\"command\": \"...\"}");
            }
            return shell.orElseThrow().run(call.getSessionId(), command.textValue());
        }
        throw new IllegalArgumentException("no executor here for " + call.getTool());
    }

    /** The result of a call as tool.outcomes carries it. */
    public static ToolResult result(ToolCall call, Outcome outcome, String executor, Instant now) {
        return ToolResult.newBuilder()
                .setCallId(call.getCallId())
                .setSessionId(call.getSessionId())
                .setTool(call.getTool())
                .setSuccess(outcome.succeeded())
                .setText(outcome.text())
                .setJson(outcome.json())
                .setError(outcome.error())
                .setStatus(outcome.status())
                .setExecutor(executor)
                .setDurationMs(outcome.durationMs())
                .setPacketId(call.getPacketId())
                .setCallCount(call.getCallCount())
                .setTimeTravel(call.getTimeTravel())
                .setParentId(call.getParentId())
                .setOriginSessionId(call.getOriginSessionId())
                .setTimestamp(now)
                .build();
    }

    /** The result of a call that was started before a crash and may not run again. */
    public static ToolResult unknownOutcome(ToolCall call, String executor, Instant startedAt, Instant now) {
        return result(call, new Outcome(ToolStatus.UNKNOWN_OUTCOME, null, null, "the executor stopped while "
                + "this call ran (started " + startedAt + "): it may or may not have taken effect, and it is not run "
                + "a second time; check its effect before asking for it again", 0), executor, now);
    }
}
