package io.cognitionstreams.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

import io.cognitionstreams.routing.MarkerParser;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.NativeToolCall;
import io.cognitionstreams.topics.Lineage;

/**
 * A model's native tool calls written into its output as the canonical {@code EXECUTE:} blocks routing reads, one
 * per call after the model's own text, so routing, the gatekeeper, the council and the executor see what they see
 * of a model that writes EXECUTE lines:
 * <ul>
 *   <li>{@code shell.run} with {@code {"command": C}}: {@code EXECUTE: C};</li>
 *   <li>an MCP tool: {@code EXECUTE: mcp__server__tool {arguments}}, the arguments as compact JSON on one line.</li>
 * </ul>
 * A call that cannot run as the model made it (its arguments are not one JSON object, or are longer than
 * {@value #MAX_ARGUMENT_CHARS} characters, it names a tool it was not offered, it repeats an id of the same answer,
 * or its shell command has a line routing would read as a marker or a code fence, or starts with {@code mcp__}, which
 * routing reads as an MCP tool's name) goes on like a malformed EXECUTE
 * line: as a call that is refused with a reason the model reads in its result, and that never runs. An offered MCP
 * tool whose arguments are not an object, and an MCP-style name the model was not offered, are written as an
 * EXECUTE line of that name would be (the executor answers "the arguments must be a JSON object"; the gatekeeper
 * denies a tool the skill may not call, a drift like any other); every other such call is written under
 * {@code mcp____<name>}, which is not a tool name (no server, docs/gatekeeper.md), so it is denied, or answered by
 * the executor with that error, and nothing is ever run in a shell for it.
 *
 * <p>Each call keeps the model's id ({@code id}) beside the pipeline's ({@code call_id}, the id routing gives its
 * block): a model chooses ids as it likes, repeats them across answers, and could copy another session's, while
 * the gatekeeper's decisions and the executor's at-most-once ledger key on the call id, which must be no other
 * call's. The model's id goes back to the model with the result.
 */
final class NativeCalls {

    /** Longer arguments are not passed on: routing refuses outputs over 512 KiB, the gatekeeper calls over 256. */
    static final int MAX_ARGUMENT_CHARS = 128 * 1024;
    /** What prefixes a call that must not run: an MCP-style name with no server, which nothing serves. */
    static final String REFUSED_PREFIX = "mcp____";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    /** The names an EXECUTE line reads whole as an MCP tool's (routing's ExecuteLine). */
    private static final Pattern MCP_LINE_NAME = Pattern.compile("mcp__[A-Za-z0-9_.-]+");
    private static final String PROBE = "EXECUTE: probe";
    private static final String MCP_PREFIX = "mcp__";

    private NativeCalls() {
    }

    /**
     * @param text    the output's text: the model's own, then one EXECUTE block per call
     * @param content the model's own text when it made calls, else null
     */
    record Written(String text, List<NativeToolCall> calls, String content) {
    }

    /**
     * @param offered  the tools the model was offered, by the pipeline's names
     * @param outputId the output's id, which the calls' ids derive from as routing derives them
     */
    static Written write(String content, List<ChatToolCall> calls, Set<String> offered, String outputId) {
        if (calls.isEmpty()) {
            return new Written(content, List.of(), null);
        }
        String own = readable(content.strip());
        StringBuilder text = new StringBuilder(own);
        Set<String> ids = new HashSet<>();
        List<NativeToolCall.Builder> written = new ArrayList<>();
        List<String> blocks = new ArrayList<>();
        for (ChatToolCall call : calls) {
            Problem problem = problem(call, offered, ids);
            String block = problem == null ? canonical(call) : refused(call, problem);
            if (problem == null && !readsBackWhole(block)) {
                problem = new Problem(Kind.OTHER, "its command has a line routing reads as a marker or a code fence");
                block = refused(call, problem);
            }
            blocks.add(block);
            String arguments = call.getArguments().length() <= MAX_ARGUMENT_CHARS ? call.getArguments()
                    : left(call.getArguments());
            written.add(NativeToolCall.newBuilder().setId(call.getId()).setName(call.getName())
                    .setArguments(arguments).setProblem(problem == null ? null : problem.text()));
        }
        for (String block : blocks) {
            text.append(text.isEmpty() ? "" : "\n").append(block);
        }
        String full = text.toString();
        List<MarkerParser.Block> parsed = MarkerParser.parse(full);
        int first = parsed.size() - blocks.size();
        List<NativeToolCall> result = new ArrayList<>(written.size());
        for (int i = 0; i < written.size(); i++) {
            MarkerParser.Block block = parsed.get(first + i);
            if (block.marker() != Marker.EXECUTE || !blocks.get(i).equals("EXECUTE: " + block.text())) {
                throw new IllegalStateException("call " + i + " did not read back as its EXECUTE block: " + block);
            }
            result.add(written.get(i).setCallId(Lineage.blockId(outputId, first + i)).build());
        }
        return new Written(full, result, content);
    }

    /** What is wrong with a call: the kinds an EXECUTE line of the same name would show apart from the rest. */
    private enum Kind { NOT_OFFERED, NOT_AN_OBJECT, OTHER }

    private record Problem(Kind kind, String text) {
    }

    /** Why a call cannot run as made, or null. */
    private static Problem problem(ChatToolCall call, Set<String> offered, Set<String> ids) {
        if (!call.getId().isEmpty() && !ids.add(call.getId())) {
            return new Problem(Kind.OTHER, "the answer gives id " + call.getId() + " to an earlier call too");
        }
        if (call.getArguments().length() > MAX_ARGUMENT_CHARS) {
            return new Problem(Kind.OTHER, "arguments of " + call.getArguments().length()
                    + " characters, over the limit of " + MAX_ARGUMENT_CHARS);
        }
        if (!offered.contains(call.getName())) {
            return new Problem(Kind.NOT_OFFERED, "the model was offered no tool named "
                    + abbreviate(call.getName()));
        }
        JsonNode arguments = object(call.getArguments());
        if (arguments == null) {
            return new Problem(Kind.NOT_AN_OBJECT, "the arguments are not one JSON object");
        }
        if (call.getName().equals(OutputRouter.SHELL_TOOL)) {
            JsonNode command = arguments.get("command");
            if (command == null || !command.isTextual() || command.textValue().isBlank()) {
                return new Problem(Kind.OTHER, OutputRouter.SHELL_TOOL + " takes {\"command\": \"...\"}");
            }
            // Routing reads an EXECUTE line that starts with mcp__ as an MCP tool's call, never as a command.
            return command.textValue().strip().startsWith(MCP_PREFIX)
                    ? new Problem(Kind.OTHER, "its command starts with " + MCP_PREFIX + ", as an MCP tool's name does")
                    : null;
        }
        return MCP_LINE_NAME.matcher(call.getName()).matches() ? null
                : new Problem(Kind.OTHER, "an EXECUTE line can only call shell.run and mcp__ tools");
    }

    private static String canonical(ChatToolCall call) {
        JsonNode arguments = object(call.getArguments());
        if (call.getName().equals(OutputRouter.SHELL_TOOL)) {
            return "EXECUTE: " + arguments.get("command").textValue().strip();
        }
        return "EXECUTE: " + call.getName() + " " + arguments;
    }

    /** The EXECUTE line of a call that cannot run as made: see the class comment. */
    private static String refused(ChatToolCall call, Problem problem) {
        String arguments = call.getArguments().length() > MAX_ARGUMENT_CHARS
                ? TextNode.valueOf(left(call.getArguments())).toString() : oneLine(call.getArguments());
        if (problem.kind() != Kind.OTHER && MCP_LINE_NAME.matcher(call.getName()).matches()) {
            return "EXECUTE: " + call.getName() + " " + arguments;
        }
        String name = call.getName().replaceAll("[^A-Za-z0-9_.-]", "_");
        return "EXECUTE: " + REFUSED_PREFIX + abbreviate(name.isEmpty() ? "_" : name) + " " + arguments;
    }

    /** JSON stays JSON, compact; anything else becomes a JSON string: one line either way. */
    private static String oneLine(String arguments) {
        try {
            JsonNode parsed = JSON.readTree(arguments);
            if (parsed != null && !parsed.isMissingNode()) {
                return parsed.toString();
            }
        } catch (JsonProcessingException e) {
            // not JSON
        }
        return TextNode.valueOf(arguments).toString();
    }

    private static JsonNode object(String arguments) {
        try {
            JsonNode parsed = JSON.readTree(arguments);
            return parsed != null && parsed.isObject() ? parsed : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** Whether a block, followed by another, parses as itself: no line of it opens a block or a fence. */
    private static boolean readsBackWhole(String block) {
        List<MarkerParser.Block> parsed = MarkerParser.parse(block + "\n" + PROBE);
        return parsed.size() == 2 && parsed.get(0).marker() == Marker.EXECUTE
                && block.equals("EXECUTE: " + parsed.get(0).text())
                && parsed.get(1).text().equals("probe");
    }

    /** The model's text, with a code fence it left open closed, so the blocks after it are read as blocks. */
    private static String readable(String own) {
        for (String closing : new String[]{"", "\n```", "\n~~~"}) {
            String candidate = own + closing;
            List<MarkerParser.Block> parsed = MarkerParser.parse(candidate + "\n" + PROBE);
            MarkerParser.Block last = parsed.isEmpty() ? null : parsed.get(parsed.size() - 1);
            if (last != null && last.marker() == Marker.EXECUTE && last.text().equals("probe")) {
                return candidate;
            }
        }
        throw new IllegalStateException("no closing fence makes the answer's text end");
    }

    private static String left(String arguments) {
        return "(arguments of " + arguments.length() + " characters left out)";
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
