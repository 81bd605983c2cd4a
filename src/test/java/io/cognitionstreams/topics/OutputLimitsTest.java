package io.cognitionstreams.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;

class OutputLimitsTest {

    private static final long NOW = Instant.parse("2026-11-25T12:00:00Z").toEpochMilli();

    @Test
    void kafkasDefaultsTakeOneHourAheadAndAnyTimeBehind() {
        OutputLimits limits = OutputLimits.defaults();

        assertThat(limits.refuseTimestamp("council.roles", NOW + Duration.ofMinutes(59).toMillis(), NOW)).isEmpty();
        assertThat(limits.refuseTimestamp("council.roles", NOW + Duration.ofHours(2).toMillis(), NOW)).hasValue(
                "timestamp 2026-11-25T14:00:00Z is PT2H ahead of the clock, more than council.roles takes "
                        + "(message.timestamp.after.max.ms = PT1H)");
        assertThat(limits.refuseTimestamp("council.roles", Instant.parse("1971-01-01T00:00:00Z").toEpochMilli(),
                NOW)).isEmpty();
    }

    @Test
    void aTopicsOwnConfigsAreWhatCounts() {
        OutputLimits.TopicLimits tuned = OutputLimits.limitsOf(new Config(List.of(
                new ConfigEntry("max.message.bytes", "65536"),
                new ConfigEntry("message.timestamp.after.max.ms", "60000"),
                new ConfigEntry("message.timestamp.before.max.ms", "86400000"))));
        OutputLimits limits = new OutputLimits(OutputLimits.DEFAULT_MAX_REQUEST_BYTES, Map.of("t", tuned));

        assertThat(limits.maxValueBytes("t"))
                .isEqualTo(65536 - OutputLimits.MAX_KEY_BYTES - OutputLimits.RECORD_OVERHEAD_BYTES);
        assertThat(limits.refuseTimestamp("t", NOW + 61_000, NOW)).isPresent();
        assertThat(limits.refuseTimestamp("t", NOW - Duration.ofDays(2).toMillis(), NOW)).get().asString()
                .contains("behind the clock, more than t takes (message.timestamp.before.max.ms = PT24H)");
        assertThat(limits.maxValueBytes("other")).as("a topic not read has Kafka's defaults")
                .isEqualTo(OutputLimits.DEFAULT_MAX_REQUEST_BYTES - OutputLimits.MAX_KEY_BYTES
                        - OutputLimits.RECORD_OVERHEAD_BYTES);
    }

    @Test
    void logAppendTimeTopicsCheckNoTimestampAndAnUnboundedWindowIsNoWindow() {
        assertThat(OutputLimits.limitsOf(new Config(List.of(
                new ConfigEntry("message.timestamp.type", "LogAppendTime")))).maxAhead()).isEmpty();
        assertThat(OutputLimits.limitsOf(new Config(List.of(
                new ConfigEntry("message.timestamp.before.max.ms", String.valueOf(Long.MAX_VALUE))))).maxBehind())
                .isEqualTo(Optional.empty());
    }

    @Test
    void theGuardRefusesAValueOrKeyTheTopicCannotTakeAndCountsTheHeaders() {
        OutputLimits.TopicLimits small = new OutputLimits.TopicLimits(10_000, Optional.empty(), Optional.empty());
        OutputLimits limits = new OutputLimits(OutputLimits.DEFAULT_MAX_REQUEST_BYTES, Map.of("t", small));
        Serializer<String> values = OutputGuard.values(Serdes.String(), limits).serializer();
        int room = limits.maxValueBytes("t");

        assertThat(values.serialize("t", "x".repeat(room))).hasSize(room);
        assertThatThrownBy(() -> values.serialize("t", "x".repeat(room + 1)))
                .isInstanceOf(OutputGuard.RefusedOutputException.class)
                .hasMessage("a record of " + (room + 1) + " bytes (value and headers) for t is over the " + room
                        + " bytes the topic takes (max.message.bytes, max.request.size)");
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", new byte[100]);
        assertThatThrownBy(() -> values.serialize("t", headers, "x".repeat(room - 50)))
                .isInstanceOf(OutputGuard.RefusedOutputException.class);
        assertThatThrownBy(() -> OutputGuard.keys().serializer().serialize("t", "k".repeat(5000)))
                .isInstanceOf(OutputGuard.RefusedOutputException.class)
                .hasMessageStartingWith("a key of 5000 bytes for t is over 4096");
    }
}
