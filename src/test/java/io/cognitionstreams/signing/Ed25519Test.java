package io.cognitionstreams.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.junit.jupiter.api.Test;

/**
 * Signatures are made and checked with the RFC 8032 code, and are the JDK's own: Ed25519 gives one signature per key
 * and content, and the JDK checks what the app signs as the app checks it.
 */
class Ed25519Test {

    private final Ed25519.Key key = Ed25519.Key.generated();
    private final byte[] content = "vote YES on p1".getBytes(StandardCharsets.UTF_8);

    @Test
    void theJdksSignatureOfTheContentMatches() {
        assertThat(Ed25519.problem(key.publicKey(), content, key.sign(content))).isEmpty();
    }

    @Test
    void theSignatureIsTheJdksToTheBitAndTheJdkAcceptsIt() throws Exception {
        for (int length : new int[] {0, 1, 64, 5000}) {
            byte[] bytes = "x".repeat(length).getBytes(StandardCharsets.UTF_8);
            String signed = key.sign(bytes);
            assertThat(signed).isEqualTo(Base64.getEncoder().encodeToString(key.jdkSignature(bytes)));
            java.security.Signature jdk = java.security.Signature.getInstance(Ed25519.ALGORITHM);
            jdk.initVerify(key.publicKey());
            jdk.update(bytes);
            assertThat(jdk.verify(Base64.getDecoder().decode(signed))).isTrue();
        }
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
