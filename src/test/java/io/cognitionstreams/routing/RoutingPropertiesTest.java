package io.cognitionstreams.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.Records;

/** The promises of issue 4 for any output: channels, scrubbing, execution and order. */
class RoutingPropertiesTest {

    private static final List<String> PII = List.of("jane.doe@example.com", "4111 1111 1111 1111",
            "DE89 3704 0044 0532 0130 00", "192.168.10.23", "123-45-6789", "+1 415 555 0132",
            "AKIAIOSFODNN7EXAMPLE", "00:1A:2B:3C:4D:5E");
    private static final Pattern RAW_PII = Pattern.compile(
            "jane\\.doe@|4111 1111|DE89 3704|192\\.168\\.10\\.23|123-45-6789|555 0132|AKIAIOSFODNN7|00:1A:2B");

    private final OutputRouter router = new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults());

    @Property(tries = 300)
    void anyOutputKeepsEveryPromise(@ForAll("outputs") String text) {
        OutputRouter.Routing routing = router.route(Records.output("s1", text).build());

        for (RoutedBlock block : routing.blocks()) {
            if (block.getMarker() == Marker.PLAN) {
                assertThat(block.getChannel()).isIn("cli_chat", "council_chat");
            }
            assertThat(block.getChannel()).as("EXECUTE never goes straight to a channel").isNotEqualTo("shell");
            assertThat(RAW_PII.matcher(block.getText()).find()).as("PII in %s", block.getText()).isFalse();
        }
        List<Integer> order = routing.blocks().stream().map(RoutedBlock::getSequence).toList();
        assertThat(order).isSorted();
        long executes = routing.markers().stream().filter(m -> m == Marker.EXECUTE).count();
        assertThat(routing.toolCalls()).hasSize((int) executes);
    }

    @Provide
    Arbitrary<String> outputs() {
        Arbitrary<String> marker = Arbitraries.of("PLAN:", "EXECUTE:", "RESPONSE:", "THOUGHT_SEED:", "INTERRUPT:",
                "VERIFY:", "NOTE:", "", "```", "plan:");
        Arbitrary<String> words = Arbitraries.strings().withChars("abcdefghij .,-:0123456789\u00e9\u6771")
                .ofMaxLength(40);
        Arbitrary<String> pii = Arbitraries.of(PII);
        Arbitrary<String> line = Combinators.combine(marker, words, pii, Arbitraries.integers().between(0, 3))
                .as((m, w, p, withPii) -> m + " " + w + (withPii == 0 ? " " + p + " " + w : ""));
        return line.list().ofMinSize(1).ofMaxSize(12).map(lines -> String.join("\n", lines));
    }
}
