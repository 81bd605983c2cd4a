package io.cognitionstreams.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.junit.jupiter.api.Test;

/** Signatures made with the JDK's Ed25519 are checked by the faster RFC 8032 code exactly as the JDK would. */
class Ed25519Test {

    private final Ed25519.Key key = Ed25519.Key.generated();
    private final byte[] content = "vote YES on p1".getBytes(StandardCharsets.UTF_8);

    @Test
    void theJdksSignatureOfTheContentMatches() {
        assertThat(Ed25519.problem(key.publicKey(), content, key.sign(content))).isEmpty();
    }

    @Test
    void anotherKeyChangedContentOrAChangedSignatureDoNot() {
        String signature = key.sign(content);
        byte[] flipped = Base64.getDecoder().decode(signature);
        flipped[10] ^= 1;

        assertThat(Ed25519.problem(Ed25519.Key.generated().publicKey(), content, signature))
                .contains("its signature does not match its content");
        assertThat(Ed25519.problem(key.publicKey(), "vote NO on p1".getBytes(StandardCharsets.UTF_8), signature))
                .contains("its signature does not match its content");
        assertThat(Ed25519.problem(key.publicKey(), content, Base64.getEncoder().encodeToString(flipped)))
                .contains("its signature does not match its content");
    }

    @Test
    void aSignatureOfTheWrongLengthOrNotBase64IsRefusedWithoutAnError() {
        assertThat(Ed25519.problem(key.publicKey(), content, Base64.getEncoder().encodeToString(new byte[63])))
                .contains("its signature does not match its content");
        assertThat(Ed25519.problem(key.publicKey(), content, "")).contains("its signature does not match its content");
        assertThat(Ed25519.problem(key.publicKey(), content, "not base64!")).contains("its signature is not base64");
    }
}
