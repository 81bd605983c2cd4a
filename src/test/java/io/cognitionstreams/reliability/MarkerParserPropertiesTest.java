package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import io.cognitionstreams.routing.MarkerParser;
import io.cognitionstreams.schema.Marker;

/**
 * The marker parser over any text, and over generated outputs whose structure is known: which lines are real
 * markers, which sit in code fences. A small reference model of the generated structure is the oracle.
 */
class MarkerParserPropertiesTest {

    private static final List<Marker> MARKERS = List.of(Marker.PLAN, Marker.EXECUTE, Marker.RESPONSE,
            Marker.THOUGHT_SEED, Marker.INTERRUPT, Marker.VERIFY);

    @Property(tries = 500)
    void anyTextParsesIntoTrimmedBlocksMadeOfItsOwnLines(@ForAll String text) {
        List<MarkerParser.Block> blocks = MarkerParser.parse(text);

        String normalized = text.replace("\r\n", "\n").replace('\r', '\n');
        long blockChars = 0;
        for (MarkerParser.Block block : blocks) {
            assertThat(block.text()).isEqualTo(block.text().strip()).doesNotContain("\r");
            if (block.marker() != Marker.INTERRUPT) {
                assertThat(block.text()).as("only an INTERRUPT may be empty").isNotEmpty();
            }
            block.text().lines().forEach(line -> assertThat(normalized).contains(line));
            blockChars += visible(block.text());
        }
        assertThat(blockChars).isLessThanOrEqualTo(visible(text));
    }

    @Property(tries = 500)
    void realMarkersOpenBlocksInOrderAndFencedOnesNever(@ForAll("outputs") Output output) {
        List<MarkerParser.Block> blocks = MarkerParser.parse(output.text());

        List<Marker> opened = blocks.stream().map(MarkerParser.Block::marker)
                .filter(marker -> marker != Marker.PREAMBLE && marker != Marker.UNMARKED).toList();
        assertThat(opened).isEqualTo(output.realMarkers());
        if (output.realMarkers().isEmpty()) {
            assertThat(blocks).hasSizeLessThanOrEqualTo(1)
                    .allSatisfy(block -> assertThat(block.marker()).isEqualTo(Marker.UNMARKED));
        }
    }

    @Property(tries = 500)
    void everyVisibleCharacterButTheMarkersThemselvesLandsInExactlyOneBlock(@ForAll("outputs") Output output) {
        List<MarkerParser.Block> blocks = MarkerParser.parse(output.text());

        long markerChars = output.realMarkers().stream().mapToLong(marker -> marker.name().length() + 1).sum();
        long blockChars = blocks.stream().mapToLong(block -> visible(block.text())).sum();
        assertThat(blockChars).isEqualTo(visible(output.text()) - markerChars);
    }

    private static long visible(String text) {
        return text.codePoints().filter(c -> !Character.isWhitespace(c) && !Character.isSpaceChar(c)).count();
    }

    /** A generated output and the markers a correct parser must find in it, in order. */
    record Output(String text, List<Marker> realMarkers) {
    }

    /** One piece of an output: its lines, and the markers among them that are real (outside a fence). */
    private record Piece(List<String> lines, List<Marker> markers) {
    }

    @Provide
    Arbitrary<Output> outputs() {
        Arbitrary<Piece> piece = Arbitraries.frequencyOf(Tuple.of(3, markerLine()),
                Tuple.of(4, plainLine().map(line -> new Piece(List.of(line), List.of()))), Tuple.of(1, fence(true)));
        Arbitrary<List<Piece>> pieces = piece.list().ofMaxSize(15);
        Arbitrary<List<String>> breaks = Arbitraries.of("\n", "\r\n", "\r").list().ofSize(40);
        return Combinators.combine(pieces, breaks, fence(false).optional()).as((list, separators, unclosed) -> {
            List<Piece> all = new ArrayList<>(list);
            unclosed.ifPresent(all::add);
            List<String> lines = new ArrayList<>();
            List<Marker> markers = new ArrayList<>();
            for (Piece p : all) {
                lines.addAll(p.lines());
                markers.addAll(p.markers());
            }
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < lines.size(); i++) {
                text.append(i == 0 ? "" : separators.get(i % separators.size())).append(lines.get(i));
            }
            return new Output(text.toString(), markers);
        });
    }

    private Arbitrary<Piece> markerLine() {
        return Combinators.combine(Arbitraries.of(MARKERS), words().filter(w -> !w.isBlank()))
                .as((marker, rest) -> new Piece(List.of(marker.name() + ":" + rest), List.of(marker)));
    }

    /** A fenced block whose lines may look like markers; unclosed ones run to the end of the output. */
    private Arbitrary<Piece> fence(boolean closed) {
        Arbitrary<String> inner = Arbitraries.oneOf(plainLine(),
                Combinators.combine(Arbitraries.of(MARKERS), words()).as((m, w) -> m.name() + ":" + w));
        return Combinators.combine(Arbitraries.of("```", "~~~"), Arbitraries.of("", "bash", "json"),
                inner.list().ofMaxSize(5)).as((fence, language, body) -> {
                    List<String> lines = new ArrayList<>();
                    lines.add(fence + language);
                    lines.addAll(body);
                    if (closed) {
                        lines.add(fence);
                    }
                    return new Piece(lines, List.of());
                });
    }

    /** Text that is never a marker line or a fence: prose, label-like lines, lower-case marker names. */
    private Arbitrary<String> plainLine() {
        return Arbitraries.oneOf(words(), words().map(w -> "NOTE:" + w), words().map(w -> "plan:" + w),
                words().map(w -> " PLAN:" + w), words().map(w -> "PLANS " + w))
                .filter(line -> MARKERS.stream().noneMatch(marker -> line.startsWith(marker.name() + ":")));
    }

    private Arbitrary<String> words() {
        return Arbitraries.strings().withChars("abcxyz PLAN:EXECUTE.,-`~\t\u00e9\u6771\u00a0").ofMaxLength(30)
                .filter(w -> !w.startsWith("```") && !w.startsWith("~~~"));
    }
}
