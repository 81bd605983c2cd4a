package io.cognitionstreams.model;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * An endpoint's Retry-After header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. What cannot be read is
 * ignored, as if absent: the caller's own backoff then applies.
 */
final class RetryAfter {

    /** Longer than any provider asks in practice: a bogus value must not park a call for days. */
    static final Duration MAX = Duration.ofMinutes(10);

    private RetryAfter() {
    }

    static Optional<Duration> parse(Optional<String> header, Instant now) {
        if (header.isEmpty()) {
            return Optional.empty();
        }
        String value = header.get().strip();
        Duration wait;
        if (!value.isEmpty() && value.chars().allMatch(Character::isDigit)) {
            try {
                wait = Duration.ofSeconds(Long.parseLong(value));
            } catch (NumberFormatException tooLong) {
                wait = MAX;
            }
        } else {
            try {
                wait = Duration.between(now, ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant());
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        }
        if (wait.isNegative()) {
            return Optional.of(Duration.ZERO);
        }
        return Optional.of(wait.compareTo(MAX) > 0 ? MAX : wait);
    }
}
