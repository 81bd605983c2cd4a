package io.cognitionstreams.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The principal a governed record's writer names, from the settings its client authenticates with. */
class ClientPrincipalTest {

    @Test
    void saslNamesTheUserOfItsJaasConfig() {
        assertThat(ClientPrincipal.describe(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism",
                "SCRAM-SHA-512", "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule "
                        + "required username=\"governance\" password=\"s3cret\";"), "ann"))
                .isEqualTo("User:governance");
    }

    @Test
    void withoutAuthenticationItIsKafkasAnonymousAndTheOsUser() {
        assertThat(ClientPrincipal.describe(Map.of(), "ann")).isEqualTo("User:ANONYMOUS (os user ann)");
        assertThat(ClientPrincipal.describe(Map.of("security.protocol", "plaintext"), "ann"))
                .isEqualTo("User:ANONYMOUS (os user ann)");
    }

    @Test
    void aSaslConfigWithoutAUsernameAndTlsSayWhatTheyAreAndNeverThePassword() {
        assertThat(ClientPrincipal.describe(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.jaas.config",
                "...OAuthBearerLoginModule required clientSecret=\"x\";"), "ann"))
                .isEqualTo("User:(SASL_PLAINTEXT without a username)");
        assertThat(ClientPrincipal.describe(Map.of("security.protocol", "SSL"), "ann"))
                .isEqualTo("User:(the distinguished name of the client certificate)");
    }
}
