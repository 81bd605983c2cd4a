package io.cognitionstreams.governance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Records;

class CouncilKeysTest {

    private final Ed25519.Key key = Ed25519.Key.generated();
    private final CouncilKey lite = CouncilSignatures.keyRecord("lite", key.publicKey(), Records.T0);

    @Test
    void aRoleKeyedByItsRoleWithItsOwnKeyIdIsTaken() {
        assertThat(CouncilKeys.refuse("lite", lite)).isEmpty();
        assertThat(lite.getKeyId()).isEqualTo(key.id());
    }

    @Test
    void anythingElseIsRefusedWithTheReason() {
        assertThat(CouncilKeys.refuse("prime", lite)).hasValueSatisfying(r -> assertThat(r).contains("keyed by role"));
        assertThat(CouncilKeys.refuse("lite", CouncilKey.newBuilder(lite).setKeyId("00").build()))
                .hasValueSatisfying(r -> assertThat(r).contains("is not the id of the public key (" + key.id()));
        assertThat(CouncilKeys.refuse("lite", CouncilKey.newBuilder(lite).setPublicKey("not base64!").build()))
                .hasValueSatisfying(r -> assertThat(r).contains("not base64"));
        assertThat(CouncilKeys.refuse("lite", CouncilKey.newBuilder(lite).setPublicKey("AAAA").build()))
                .hasValueSatisfying(r -> assertThat(r).contains("not an Ed25519 key"));
    }
}
