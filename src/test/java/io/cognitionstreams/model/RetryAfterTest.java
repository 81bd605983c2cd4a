package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class RetryAfterTest {

    private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");

    @Test
    void readsSecondsAndHttpDates() {
        assertThat(RetryAfter.parse(Optional.of("7"), NOW)).contains(Duration.ofSeconds(7));
        assertThat(RetryAfter.parse(Optional.of(" 0 "), NOW)).contains(Duration.ZERO);
        assertThat(RetryAfter.parse(Optional.of("Sat, 28 Nov 2026 12:00:30 GMT"), NOW))
                .contains(Duration.ofSeconds(30));
    }

    @Test
    void aDateInThePastMeansNowAndAHugeValueIsCapped() {
        assertThat(RetryAfter.parse(Optional.of("Sat, 28 Nov 2026 11:00:00 GMT"), NOW)).contains(Duration.ZERO);
        assertThat(RetryAfter.parse(Optional.of("86400"), NOW)).contains(RetryAfter.MAX);
        assertThat(RetryAfter.parse(Optional.of("99999999999999999999999"), NOW)).contains(RetryAfter.MAX);
    }

    @Test
    void whatCannotBeReadIsIgnored() {
        assertThat(RetryAfter.parse(Optional.empty(), NOW)).isEmpty();
        assertThat(RetryAfter.parse(Optional.of("soon"), NOW)).isEmpty();
        assertThat(RetryAfter.parse(Optional.of("-5"), NOW)).isEmpty();
        assertThat(RetryAfter.parse(Optional.of(""), NOW)).isEmpty();
    }
}
