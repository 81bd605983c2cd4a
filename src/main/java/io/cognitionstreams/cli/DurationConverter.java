package io.cognitionstreams.cli;

import java.time.Duration;
import java.util.Locale;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads durations the way people write them: 500ms, 10s, 2m, 1h, 90d, or ISO-8601 (PT10S). */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        String text = value.strip().toLowerCase(Locale.ROOT);
        try {
            if (text.startsWith("pt") || text.startsWith("p")) {
                return Duration.parse(value.strip().toUpperCase(Locale.ROOT));
            }
            if (text.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            long amount = Long.parseLong(text.substring(0, text.length() - 1));
            return switch (text.charAt(text.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                case 'd' -> Duration.ofDays(amount);
                default -> throw new NumberFormatException();
            };
        } catch (RuntimeException e) {
            throw new TypeConversionException("'" + value + "' is not a duration (examples: 500ms, 10s, 2m, 90d, PT1H)");
        }
    }
}
