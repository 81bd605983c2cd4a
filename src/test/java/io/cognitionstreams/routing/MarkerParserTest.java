package io.cognitionstreams.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.routing.MarkerParser.Block;
import io.cognitionstreams.schema.Marker;

class MarkerParserTest {

    @Test
    void aBlockRunsFromItsMarkerToTheNextMarkerLine() {
        List<Block> blocks = MarkerParser.parse("PLAN:\n1. a\n2. b\nEXECUTE: ls -la\nRESPONSE: done\nsecond line");

        assertThat(blocks).containsExactly(
                new Block(Marker.PLAN, "1. a\n2. b", false),
                new Block(Marker.EXECUTE, "ls -la", false),
                new Block(Marker.RESPONSE, "done\nsecond line", false));
    }

    @Test
    void markersCountOnlyAtTheStartOfALineAndInCapitals() {
        List<Block> blocks = MarkerParser.parse("RESPONSE: say PLAN: later\n  EXECUTE: indented\nplan: lower\nNOTE: x");

        assertThat(blocks).containsExactly(
                new Block(Marker.RESPONSE, "say PLAN: later\n  EXECUTE: indented\nplan: lower\nNOTE: x", false));
    }

    @Test
    void nothingInsideAFencedCodeBlockIsAMarker() {
        List<Block> blocks = MarkerParser.parse("RESPONSE: example\n```\nEXECUTE: rm -rf /\n```\n~~~\nPLAN: no\n~~~\nend");

        assertThat(blocks).hasSize(1);
        assertThat(blocks.get(0).text()).contains("EXECUTE: rm -rf /").contains("PLAN: no").endsWith("end");
    }

    @Test
    void anUnclosedFenceSwallowsTheRestOfTheOutput() {
        List<Block> blocks = MarkerParser.parse("RESPONSE: a\n```\nEXECUTE: never run\nVERIFY: never");

        assertThat(blocks).extracting(Block::marker).containsExactly(Marker.RESPONSE);
    }

    @Test
    void aThoughtSeedInsideABlockIsItsOwnOneLineBlockAndTheOuterBlockGoesOn() {
        List<Block> blocks = MarkerParser.parse("PLAN:\n1. a\nTHOUGHT_SEED: cache this\n2. b\nRESPONSE: ok");

        assertThat(blocks).containsExactly(
                new Block(Marker.PLAN, "1. a\n2. b", false),
                new Block(Marker.THOUGHT_SEED, "cache this", true),
                new Block(Marker.RESPONSE, "ok", false));
    }

    @Test
    void aThoughtSeedOutsideAnyBlockOpensAnOrdinaryBlock() {
        List<Block> blocks = MarkerParser.parse("THOUGHT_SEED: idea\nmore of it\nRESPONSE: ok");

        assertThat(blocks).containsExactly(
                new Block(Marker.THOUGHT_SEED, "idea\nmore of it", false),
                new Block(Marker.RESPONSE, "ok", false));
    }

    @Test
    void textBeforeTheFirstMarkerIsAPreamble() {
        assertThat(MarkerParser.parse("Let me think.\nRESPONSE: hi")).containsExactly(
                new Block(Marker.PREAMBLE, "Let me think.", false),
                new Block(Marker.RESPONSE, "hi", false));
    }

    @Test
    void anOutputWithoutMarkersIsOneUnmarkedBlock() {
        assertThat(MarkerParser.parse("just an answer\nover two lines")).containsExactly(
                new Block(Marker.UNMARKED, "just an answer\nover two lines", false));
        assertThat(MarkerParser.parse("")).isEmpty();
        assertThat(MarkerParser.parse(" \n\n ")).isEmpty();
    }

    @Test
    void crlfAndCrLineEndsAreNormalised() {
        assertThat(MarkerParser.parse("PLAN: a\r\nb\r\nRESPONSE: c\rd")).containsExactly(
                new Block(Marker.PLAN, "a\nb", false),
                new Block(Marker.RESPONSE, "c\nd", false));
    }

    @Test
    void emptyBlocksAreDroppedButAnEmptyInterruptStillCounts() {
        assertThat(MarkerParser.parse("PLAN:\nRESPONSE:   \nINTERRUPT:\nVERIFY: ok")).containsExactly(
                new Block(Marker.INTERRUPT, "", false),
                new Block(Marker.VERIFY, "ok", false));
    }

    @Test
    void emptyInterruptsInARowAreOneButInterruptsWithTextEachCount() {
        assertThat(MarkerParser.parse("INTERRUPT:\n".repeat(45_000) + "RESPONSE: ok\nINTERRUPT:\nINTERRUPT:"))
                .containsExactly(new Block(Marker.INTERRUPT, "", false), new Block(Marker.RESPONSE, "ok", false),
                        new Block(Marker.INTERRUPT, "", false));
        assertThat(MarkerParser.parse("INTERRUPT: disk full\nINTERRUPT: disk full\nINTERRUPT:\nPLAN:\nINTERRUPT:"))
                .extracting(Block::text).containsExactly("disk full", "disk full", "");
    }

    @Test
    void veryLongOutputsParseInOnePass() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            text.append(i % 2 == 0 ? "PLAN: step " : "RESPONSE: answer ").append(i).append('\n');
        }
        List<Block> blocks = MarkerParser.parse(text.toString());

        assertThat(blocks).hasSize(20_000);
        assertThat(blocks.get(19_999)).isEqualTo(new Block(Marker.RESPONSE, "answer 19999", false));
    }
}
