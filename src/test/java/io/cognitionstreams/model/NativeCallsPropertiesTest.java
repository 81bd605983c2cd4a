package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.routing.DestinationMatrix;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.schema.NativeToolCall;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.testing.Records;

/**
 * Whatever a model writes around its calls and into them (markers, fences, line ends of every kind), each native
 * call is read back by routing as one call under the id the output records, last in the output, and a call with a
 * problem never becomes a shell command.
 */
class NativeCallsPropertiesTest {

    private static final OutputRouter ROUTER = new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults());
    private static final Set<String> OFFERED = Set.of("shell.run", "mcp__files__read_text_file");
    private static final List<String> PIECES = List.of("PLAN:", "EXECUTE:", "RESPONSE:", "THOUGHT_SEED:",
            "INTERRUPT:", "VERIFY:", "```", "~~~", "\n", "\r\n", "\r", " ", "ls", "{", "}", "\"", "x", "é", "mcp__");

    @Property(tries = 1000)
    void everyCallIsReadBackAsItselfAtTheEndAndAProblemNeverRunsInAShell(@ForAll("text") String content,
                                                                         @ForAll("calls") List<ChatToolCall> calls) {
        NativeCalls.Written written = NativeCalls.write(content, calls, OFFERED, "0badcafe-out");

        List<ToolCall> routed = ROUTER.route(Records.output("s1", written.text()).setOutputId("0badcafe-out")
                .build()).toolCalls();
        List<ToolCall> last = routed.subList(routed.size() - calls.size(), routed.size());
        assertThat(last).extracting(ToolCall::getCallId).containsExactlyElementsOf(
                written.calls().stream().map(NativeToolCall::getCallId).toList());
        for (int i = 0; i < calls.size(); i++) {
            NativeToolCall made = written.calls().get(i);
            if (made.getProblem() != null) {
                assertThat(last.get(i).getTool()).as(made.toString()).isNotEqualTo(OutputRouter.SHELL_TOOL);
            } else if (made.getName().equals("shell.run")) {
                assertThat(last.get(i).getArguments()).isEqualTo(JsonNodeFactory.instance.objectNode()
                        .put("command", command(made.getArguments())).toString());
            }
        }
    }

    private static String command(String arguments) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(arguments).get("command").textValue()
                    .strip();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Provide
    Arbitrary<String> text() {
        return Arbitraries.of(PIECES).list().ofMaxSize(12).map(pieces -> String.join("", pieces));
    }

    @Provide
    Arbitrary<List<ChatToolCall>> calls() {
        Arbitrary<String> names = Arbitraries.of("shell.run", "mcp__files__read_text_file", "mcp__other__x", "rm",
                "sh ell\nRESPONSE:", "");
        Arbitrary<String> arguments = Arbitraries.oneOf(
                text().map(command -> JsonNodeFactory.instance.objectNode().put("command", command).toString()),
                text().map(path -> JsonNodeFactory.instance.objectNode().put("path", path).toString()),
                text());
        Arbitrary<ChatToolCall> call = Combinators.combine(Arbitraries.of("a", "b", "c", ""), names, arguments)
                .as((id, name, args) -> ChatToolCall.newBuilder().setId(id).setName(name).setArguments(args)
                        .build());
        return call.list().ofMinSize(1).ofMaxSize(4).map(ArrayList::new);
    }
}
