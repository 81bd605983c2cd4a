package io.cognitionstreams.signing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

class Sha256Test {

    @Test
    void givesTheStandardsTestVectors() {
        // FIPS 180-2, appendix B.1 and the empty string.
        assertThat(Sha256.hex("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(Sha256.hex(""))
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void partsAreDigestedOneAfterTheOtherAndNothingCarriesOverToTheNextCall() {
        byte[] whole = Sha256.of("abc");
        assertThat(Sha256.of("a".getBytes(StandardCharsets.UTF_8), "bc".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(whole);
        assertThat(Sha256.of("abc")).isEqualTo(whole);
    }

    @Test
    void eachThreadHasItsOwnDigest() {
        String abc = Sha256.hex("abc");
        var others = new CompletableFuture<?>[4];
        for (int i = 0; i < others.length; i++) {
            others[i] = CompletableFuture.runAsync(() -> {
                for (int n = 0; n < 10_000; n++) {
                    assertThat(HexFormat.of().formatHex(Sha256.of("abc"))).isEqualTo(abc);
                }
            });
        }
        CompletableFuture.allOf(others).join();
    }
}
