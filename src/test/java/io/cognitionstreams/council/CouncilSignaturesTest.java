package io.cognitionstreams.council;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.RiskLevel;

/** The signing input as docs/council.md ("Signatures") spells it out. */
class CouncilSignaturesTest {

    @Test
    void theCanonicalFormStartsAsTheDocsShowIt() {
        CouncilMessage heartbeat = CouncilMessage.newBuilder().setMsgId("h1").setCouncilId("default")
                .setTimestamp(Instant.ofEpochMilli(1000)).setSender("lite").setRole("member")
                .setType(CouncilMessageType.HEARTBEAT).setRiskLevel(RiskLevel.LOW).setContent("")
                .setSigningKey("0123456789abcdef").build();

        String expected = "00000024" + hex(CouncilSignatures.FORM) + "00000010" + hex("0123456789abcdef")
                + "00000002" + hex("h1") + "ffffffff" + "00000007" + hex("default") + "00000000000003e8"
                + "00000004" + hex("lite") + "00000006" + hex("member") + "00000009" + hex("HEARTBEAT") + "00"
                + "00000003" + hex("LOW") + "00000000" + "ffffffff".repeat(5);
        assertThat(HexFormat.of().formatHex(CouncilSignatures.canonical(heartbeat))).isEqualTo(expected);
    }

    @Test
    void aConfidenceIsAFlagAndItsIeee754Bits() {
        CouncilMessage.Builder vote = CouncilMessage.newBuilder().setMsgId("v").setCouncilId("c")
                .setTimestamp(Instant.ofEpochMilli(1)).setSender("lite").setRole("r")
                .setType(CouncilMessageType.INFO).setRiskLevel(RiskLevel.LOW).setContent("");
        byte[] without = CouncilSignatures.canonical(vote.build());
        byte[] with = CouncilSignatures.canonical(vote.setConfidence(0.5).build());
        assertThat(with.length).isEqualTo(without.length + 8);
        assertThat(HexFormat.of().formatHex(with))
                .contains("01" + "3fe0000000000000" + "00000003" + hex("LOW"));
    }

    private static String hex(String text) {
        return HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8));
    }
}
