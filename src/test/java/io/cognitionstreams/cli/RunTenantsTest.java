package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Which tenants `run` gives topics of their own. */
class RunTenantsTest {

    @Test
    void anOpenRunHasNoTenantsUnlessGivenSoItKeepsTheTopicsItHad() {
        assertThat(RunCommand.tenants(null, false)).isEmpty();
        assertThat(RunCommand.tenants(List.of("acme"), false)).containsExactly("acme");
    }

    @Test
    void aSecureRunHasTheDefaultTenantsUnlessGiven() {
        assertThat(RunCommand.tenants(null, true)).containsExactly("tenant-a", "tenant-b");
        assertThat(RunCommand.tenants(List.of("acme", "globex"), true)).containsExactly("acme", "globex");
    }

    @Test
    void aTenantNameWithADotIsRefusedEitherWay() {
        assertThatThrownBy(() -> RunCommand.tenants(List.of("acme.eu"), false))
                .hasMessageContaining("invalid tenant name 'acme.eu'");
    }
}
