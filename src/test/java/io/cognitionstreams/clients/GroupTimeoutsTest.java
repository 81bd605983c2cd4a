package io.cognitionstreams.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class GroupTimeoutsTest {

    @Test
    void heartbeatsAreAThirdOfTheSession() {
        assertThat(GroupTimeouts.heartbeat(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(1));
        assertThat(GroupTimeouts.heartbeat(Duration.ofSeconds(15))).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aTransactionMayLastTheSessionBetweenFiveAndTenSeconds() {
        assertThat(GroupTimeouts.transaction(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(5));
        assertThat(GroupTimeouts.transaction(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
        assertThat(GroupTimeouts.transaction(Duration.ofSeconds(15))).isEqualTo(Duration.ofSeconds(10));
    }
}
