package io.cognitionstreams.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.schema.DeltaKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Lineage;

/**
 * An answer previewed as it streams: each RESPONSE block's deltas on each chat channel put together are the text
 * routing then writes on that channel for the block, whatever the pieces the answer arrives in.
 */
class ResponsePreviewTest {

    private static final String PACKET = "0a1b2c3d";
    private static final ResponsePreview.Answer ANSWER = new ResponsePreview.Answer("s1", PACKET, "s1-r1", "c1");
    /** Lines an answer is made of: markers (some split from their text), fences, nested seeds, findings, prose. */
    private static final String[] LINES = {
            "RESPONSE: Here is the answer.", "RESPONSE:", "PLAN: 1. check 2. deploy", "EXECUTE: ls -la",
            "THOUGHT_SEED: a reusable checklist", "INTERRUPT:", "VERIFY: passed", "RESPONSE:Mail ann@example.com now.",
            "Card 4111 1111 1111 1111 expires soon.", "Call +44 20 7946 0958 or (555) 123-4567 today.",
            "password: hunter2 and DB_PASSWORD=abc123", "IBAN DE89 3704 0044 0532 0130 00 for the refund.",
            "-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7", "-----END RSA PRIVATE KEY-----",
            "```", "RESPONSE: quoted in a fence", "~~~", "  indented text", "", "", "plain words go on here",
            "PLA", "RESP", "NOTE: not a marker", "this is shit", "\u0441\u0435\u0440\u0432\u0435\u0440 ok",
            "key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 leaked", "  ", "\t"};
    private static final String[] ENDS = {"\n", "\n", "\n", "\r\n", "\r"};

    private final OutputRouter router = new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults());
    private final Random random = new Random(20261128L);

    @Test
    void anAnswerInPiecesOfAnySizeBecomesTheTextOfItsResponseBlocksOnEveryChatChannel() {
        for (int round = 0; round < 2000; round++) {
            String text = answer(1 + random.nextInt(25));
            ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);
            List<AnswerDelta> deltas = new ArrayList<>();
            for (String piece : pieces(text)) {
                preview.accept(piece);
                if (random.nextInt(3) == 0) {
                    deltas.addAll(preview.drain());
                }
            }
            deltas.addAll(preview.complete(text));

            assertThat(texts(deltas)).as("streamed %s", text).isEqualTo(responseBlocks(text));
            assertNumberedAndDone(deltas);
        }
    }

    @Test
    void textLeavesWhileTheAnswerIsStillBeingWritten() {
        ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);
        preview.accept("PLAN: look first\nRESPONSE: The build failed because the parser chokes on an empty header "
                + "line, which the new release writes when a field is blank. ");
        preview.accept("A fix is on its way and ");

        List<AnswerDelta> early = preview.drain();

        assertThat(early).extracting(AnswerDelta::getChannel).containsExactly("cli_chat", "web_chat", "discord_chat");
        assertThat(early).allSatisfy(delta -> {
            assertThat(delta.getKind()).isEqualTo(DeltaKind.TEXT);
            assertThat(delta.getBlockId()).isEqualTo(Lineage.blockId(Lineage.outputId(PACKET), 1));
            assertThat(delta.getMarker()).isEqualTo(Marker.RESPONSE);
            assertThat(delta.getText()).startsWith("The build failed");
        });
        assertThat(preview.ended()).isFalse();
    }

    @Test
    void markersAndSecretsSplitAcrossPiecesArriveWholeAndRedacted() {
        String text = "PLAN: check\nRESPONSE: write to ann@example.com, card 4111 1111 1111 1111.\nPLAN: again\n"
                + "RESPONSE: bye";
        ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);
        List<AnswerDelta> deltas = new ArrayList<>();
        for (char c : text.toCharArray()) {
            preview.accept(String.valueOf(c));
            deltas.addAll(preview.drain());
        }
        deltas.addAll(preview.complete(text));

        Map<String, String> cli = new LinkedHashMap<>();
        texts(deltas).forEach((key, value) -> {
            if (key.startsWith("cli_chat ")) {
                cli.put(key.substring("cli_chat ".length()), value);
            }
        });
        assertThat(cli).containsExactly(
                Map.entry(PACKET + "-out#1", "write to [REDACTED:EMAIL], card [REDACTED:CARD]."),
                Map.entry(PACKET + "-out#3", "bye"));
        assertThat(deltas).noneSatisfy(delta -> assertThat(delta.getText()).containsAnyOf("ann@", "4111", "1111"));
    }

    @Test
    void aFloodOfOneCharacterPiecesBecomesAFewDeltas() {
        String body = "The quick brown fox writes to ann@example.com about card 4111 1111 1111 1111. ".repeat(1500);
        String text = "RESPONSE: " + body;
        ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);
        List<AnswerDelta> deltas = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            preview.accept(text.substring(i, i + 1));
            // As StreamedAnswers drains: now and then, not per piece.
            if (i % 5000 == 0) {
                deltas.addAll(preview.drain());
            }
        }
        deltas.addAll(preview.complete(text));

        assertThat(deltas.size()).as("%d pieces", text.length()).isLessThan(3 * 30);
        assertThat(texts(deltas).get("web_chat " + PACKET + "-out#0")).isEqualTo(responseBlocks(text)
                .get("web_chat " + PACKET + "-out#0"));
    }

    @Test
    void anAnswerRoutingWouldRefuseForItsSizeIsAbandonedThereAndHoldsNoMore() {
        ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);
        String piece = "RESPONSE: " + "lorem ipsum dolor sit amet ".repeat(2_500) + "\n";
        List<AnswerDelta> deltas = new ArrayList<>();
        StringBuilder whole = new StringBuilder();
        while (whole.length() < 10_000_000) {
            preview.accept(piece);
            whole.append(piece);
            deltas.addAll(preview.drain());
        }
        deltas.addAll(preview.complete(whole.toString()));

        assertThat(deltas.get(deltas.size() - 1).getKind()).isEqualTo(DeltaKind.ABANDONED);
        assertThat(deltas.get(deltas.size() - 1).getText()).contains("over " + OutputRouter.MAX_OUTPUT_BYTES);
        assertThat(deltas).filteredOn(delta -> delta.getKind() != DeltaKind.TEXT).hasSize(3)
                .allSatisfy(delta -> assertThat(delta.getKind()).isEqualTo(DeltaKind.ABANDONED));
        long streamed = deltas.stream().filter(delta -> delta.getChannel().equals("cli_chat"))
                .mapToLong(delta -> delta.getText().length()).sum();
        assertThat(streamed).as("what streamed before the limit").isLessThan(OutputRouter.MAX_OUTPUT_BYTES);
    }

    @Test
    void anAnswerWithMoreBlocksThanRoutingTakesIsAbandoned() {
        OutputRouter narrow = new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults(),
                new RoutingLimits(3, 1024));
        ResponsePreview preview = new ResponsePreview(narrow, ANSWER, () -> Records.T0);
        String text = "RESPONSE: one\nRESPONSE: two\nRESPONSE: three\nRESPONSE: four\n";
        List<AnswerDelta> deltas = new ArrayList<>();
        text.lines().forEach(line -> {
            preview.accept(line + "\n");
            deltas.addAll(preview.drain());
        });
        deltas.addAll(preview.complete(text));

        assertThat(deltas.get(deltas.size() - 1).getKind()).isEqualTo(DeltaKind.ABANDONED);
        assertThat(deltas.get(deltas.size() - 1).getText()).contains("more than 3 blocks");
    }

    @Test
    void anAnswerWithoutMarkersIsSentWholeAtItsEnd() {
        String text = "Just an answer, no markers,\nto ann@example.com.";
        ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);
        preview.accept(text);
        assertThat(preview.drain()).as("PREAMBLE until no marker came").isEmpty();

        List<AnswerDelta> deltas = preview.complete(text);

        assertThat(deltas).filteredOn(delta -> delta.getKind() == DeltaKind.TEXT)
                .extracting(AnswerDelta::getMarker, AnswerDelta::getText).containsOnly(
                        org.assertj.core.groups.Tuple.tuple(Marker.UNMARKED,
                                "Just an answer, no markers,\nto [REDACTED:EMAIL]."));
        assertThat(texts(deltas)).isEqualTo(responseBlocks(text));
    }

    @Test
    void onlyTheChannelsTheMatrixSendsResponsesToAreStreamed() {
        OutputRouter cliOnly = new OutputRouter(DestinationMatrix.parse("RESPONSE=cli_chat,council_chat"),
                Redactor.defaults());
        ResponsePreview preview = new ResponsePreview(cliOnly, ANSWER, () -> Records.T0);
        String text = "RESPONSE: hello there";
        preview.accept(text);

        assertThat(preview.complete(text)).extracting(AnswerDelta::getChannel, AnswerDelta::getKind)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("cli_chat", DeltaKind.TEXT),
                        org.assertj.core.groups.Tuple.tuple("cli_chat", DeltaKind.DONE));
    }

    @Test
    void aClientThatDoesNotStreamHasItsAnswerSentWholeOnCompletion() {
        ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);

        List<AnswerDelta> deltas = preview.complete("PLAN: x\nRESPONSE: all at once");

        assertThat(texts(deltas)).containsEntry("discord_chat " + PACKET + "-out#1", "all at once");
        assertNumberedAndDone(deltas);
    }

    @Test
    void anAnswerThatIsNotWhatStreamedIsAbandoned() {
        ResponsePreview preview = new ResponsePreview(router, ANSWER, () -> Records.T0);
        preview.accept("RESPONSE: first words of a long answer that goes on and on and on and on and on and "
                + "on and on and on and on and on and on and on and on and on and on and on and on and on ");

        List<AnswerDelta> deltas = new ArrayList<>(preview.drain());
        deltas.addAll(preview.complete("RESPONSE: something else entirely"));

        assertThat(deltas.get(deltas.size() - 1).getKind()).isEqualTo(DeltaKind.ABANDONED);
        assertThat(deltas.get(deltas.size() - 1).getText()).contains("not the text that streamed");
        assertThat(preview.diverged()).as("for the caller to preview the answer again").isTrue();
    }

    @Test
    void aFailedCallIsAbandonedWhereItsTextWentAndNowhereElse() {
        ResponsePreview nothingYet = new ResponsePreview(router, ANSWER, () -> Records.T0);
        nothingYet.accept("PLAN: thinking");
        assertThat(nothingYet.abandon("HTTP 503")).as("no reader saw anything of it").isEmpty();

        ResponsePreview midway = new ResponsePreview(router, ANSWER, () -> Records.T0);
        midway.accept("RESPONSE: " + "some text ".repeat(30));
        List<AnswerDelta> deltas = new ArrayList<>(midway.drain());
        deltas.addAll(midway.abandon("HTTP 503"));
        midway.accept("more text that must not go anywhere");

        assertThat(deltas).filteredOn(delta -> delta.getKind() == DeltaKind.ABANDONED)
                .extracting(AnswerDelta::getChannel, AnswerDelta::getText).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("cli_chat", "HTTP 503"),
                        org.assertj.core.groups.Tuple.tuple("web_chat", "HTTP 503"),
                        org.assertj.core.groups.Tuple.tuple("discord_chat", "HTTP 503"));
        assertThat(midway.drain()).isEmpty();
        assertThat(midway.ended()).isTrue();
    }

    /** What routing writes for the answer's RESPONSE (and UNMARKED) blocks, by "channel block_id". */
    private Map<String, String> responseBlocks(String text) {
        LlmOutput output = Records.output("s1", text).setPacketId(PACKET).setOutputId(Lineage.outputId(PACKET))
                .build();
        Map<String, String> blocks = new LinkedHashMap<>();
        for (RoutedBlock block : router.route(output).blocks()) {
            boolean streamed = Channel.ofId(block.getChannel()).map(Channel::streamed).orElse(false);
            if (streamed && (block.getMarker() == Marker.RESPONSE || block.getMarker() == Marker.UNMARKED)) {
                blocks.put(block.getChannel() + " " + block.getBlockId(), block.getText());
            }
        }
        return sorted(blocks);
    }

    private static Map<String, String> texts(List<AnswerDelta> deltas) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (AnswerDelta delta : deltas) {
            if (delta.getKind() == DeltaKind.TEXT) {
                texts.merge(delta.getChannel() + " " + delta.getBlockId(), delta.getText(), String::concat);
            }
        }
        return sorted(texts);
    }

    private static Map<String, String> sorted(Map<String, String> map) {
        return new java.util.TreeMap<>(map);
    }

    /** Per channel: numbered from 0 without a gap, one DONE last. */
    private static void assertNumberedAndDone(List<AnswerDelta> deltas) {
        Map<String, List<AnswerDelta>> byChannel = new LinkedHashMap<>();
        deltas.forEach(delta -> byChannel.computeIfAbsent(delta.getChannel(), c -> new ArrayList<>()).add(delta));
        byChannel.forEach((channel, list) -> {
            for (int i = 0; i < list.size(); i++) {
                assertThat(list.get(i).getSequence()).as("%s delta %d", channel, i).isEqualTo(i);
                assertThat(list.get(i).getKind()).isEqualTo(i == list.size() - 1 ? DeltaKind.DONE : DeltaKind.TEXT);
            }
        });
    }

    private String answer(int lines) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            text.append(LINES[random.nextInt(LINES.length)]);
            if (i < lines - 1 || random.nextBoolean()) {
                text.append(ENDS[random.nextInt(ENDS.length)]);
            }
        }
        return text.toString();
    }

    private List<String> pieces(String text) {
        int max = 1 + random.nextInt(random.nextBoolean() ? 3 : 40);
        List<String> pieces = new ArrayList<>();
        for (int at = 0; at < text.length(); ) {
            int end = Math.min(text.length(), at + 1 + random.nextInt(max));
            pieces.add(text.substring(at, end));
            at = end;
        }
        return pieces;
    }
}
