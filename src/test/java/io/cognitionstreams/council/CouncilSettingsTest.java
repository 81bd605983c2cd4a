package io.cognitionstreams.council;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class CouncilSettingsTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    @Test
    void theDefaultsAreTheSeeds() {
        CouncilSettings defaults = CouncilSettings.defaults();

        assertThat(defaults.roles()).containsExactly("prime", "lite", "codemind");
        assertThat(defaults.prime()).isEqualTo("prime");
        assertThat(defaults.quorum()).isEqualTo(2);
        assertThat(defaults.heartbeatTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(defaults.tick()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void inconsistentSettingsAreRefused() {
        assertThatThrownBy(() -> settings(List.of("prime", "lite"), "boss", 2))
                .hasMessageContaining("prime role 'boss' is not one of the council roles");
        assertThatThrownBy(() -> settings(List.of("prime", "prime"), "prime", 2)).hasMessageContaining("twice");
        assertThatThrownBy(() -> settings(List.of("prime", "Lite"), "prime", 2)).hasMessageContaining("'Lite'");
        assertThatThrownBy(() -> settings(List.of("prime", "router"), "prime", 2))
                .hasMessageContaining("'router' is a reserved sender");
        assertThatThrownBy(() -> settings(List.of("prime"), "prime", 2)).hasMessageContaining("quorum 2 is outside");
        assertThatThrownBy(() -> settings(List.of("prime", "lite"), "prime", 3))
                .hasMessageContaining("quorum 3 is outside 2..2");
        assertThatThrownBy(() -> CouncilSettings.defaults().withTimes(Duration.ZERO, MINUTE, MINUTE))
                .hasMessageContaining("heartbeat timeout PT0S must be positive");
        assertThatThrownBy(() -> CouncilSettings.defaults().withTimes(MINUTE, MINUTE, Duration.ofSeconds(-1)))
                .hasMessageContaining("tick PT-1S is negative");
    }

    private static CouncilSettings settings(List<String> roles, String prime, int quorum) {
        return new CouncilSettings(roles, prime, quorum, MINUTE, MINUTE, MINUTE, MINUTE);
    }
}
