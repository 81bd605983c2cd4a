package io.cognitionstreams.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TenantBindingTest {

    private static final String A = "tenant-a";

    @Test
    void aSessionOfTheTenantWithoutAScopeIsBound() {
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", null)).isEmpty();
    }

    @Test
    void aSessionOfAnotherTenantIsRefusedNamingTheTenantAndTheTopic() {
        assertThat(TenantBinding.problem(A, "tenant-b.chat-1", null)).hasValueSatisfying(reason -> assertThat(reason)
                .contains("session 'tenant-b.chat-1'", "tenant tenant-a", "cognition.requests.tenant-a"));
    }

    @Test
    void aTenantWhoseNameTheTenantBeginsIsAnotherTenant() {
        assertThat(TenantBinding.problem(A, "tenant-ab.x", null)).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a-b.x", null)).isPresent();
    }

    @Test
    void aSessionWithoutThePrefixOrWithNothingAfterTheDotIsRefused() {
        assertThat(TenantBinding.problem(A, "chat-1", null)).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a", null)).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a.", null)).isPresent();
        assertThat(TenantBinding.problem(A, ".tenant-a.x", null)).isPresent();
        assertThat(TenantBinding.problem(A, null, null)).isPresent();
    }

    @Test
    void theTenantsOwnScopesAreAccepted() {
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "tenant-a")).isEmpty();
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "tenant-a.team")).isEmpty();
        // Another session of the tenant's own scope, as a fork names its original's.
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "session/tenant-a.chat-0")).isEmpty();
    }

    @Test
    void aScopeOutsideTheTenantIsRefusedNamingIt() {
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "tenant-b")).hasValueSatisfying(reason ->
                assertThat(reason).contains("memory scope 'tenant-b'", "cognition.requests.tenant-a"));
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "tenant-b.team")).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "tenant-ab")).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "tenant-a.")).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "session/tenant-b.chat-1")).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "session/tenant-a")).isPresent();
        assertThat(TenantBinding.problem(A, "tenant-a.chat-1", "shared")).isPresent();
    }
}
