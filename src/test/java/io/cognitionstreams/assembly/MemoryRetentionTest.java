package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class MemoryRetentionTest {

    private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");

    private final MemoryIndex index = new MemoryIndex();

    @Test
    void aWriteMakesRoomForItselfUnlessItReplacesAnEntryTheScopeHolds() {
        for (int i = 0; i < 3; i++) {
            index.put("b" + i, "ops", "lesson " + i, NOW.toEpochMilli() + i, new float[] {1, 0});
        }
        MemoryRetention three = new MemoryRetention(3, Duration.ZERO);

        assertThat(three.onWrite(index, "ops", "b3", NOW)).containsExactly("b0");
        assertThat(three.onWrite(index, "ops", "b2", NOW)).as("b2 rewritten: still three").isEmpty();
        assertThat(three.onWrite(index, "dev", "b2", NOW)).as("b2 moving to another scope").isEmpty();
        assertThat(new MemoryRetention(1, Duration.ZERO).onWrite(index, "ops", "b3", NOW))
                .containsExactly("b0", "b1", "b2");
    }

    @Test
    void theSweepForgetsWhatIsTooOldOrTooManyInEveryScopeAndNothingWithoutABound() {
        index.put("a-old", "a", "old", NOW.minus(Duration.ofDays(91)).toEpochMilli(), new float[] {1, 0});
        index.put("a-new", "a", "new", NOW.toEpochMilli(), new float[] {1, 0});
        index.put("b-1", "b", "first", NOW.toEpochMilli(), new float[] {1, 0});
        index.put("b-2", "b", "second", NOW.toEpochMilli() + 1, new float[] {1, 0});

        assertThat(MemoryRetention.defaults().sweep(index, NOW)).containsExactly("a-old");
        assertThat(new MemoryRetention(1, Duration.ZERO).sweep(index, NOW)).containsExactly("a-old", "b-1");
        MemoryRetention unbounded = new MemoryRetention(0, Duration.ZERO);
        assertThat(unbounded.bounded()).isFalse();
        assertThat(unbounded.sweep(index, NOW)).isEmpty();
        assertThat(unbounded.onWrite(index, "b", "b-3", NOW)).isEmpty();
    }

    @Test
    void aNegativeBoundIsRefused() {
        assertThatThrownBy(() -> new MemoryRetention(-1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("memory max entries must be 0 (no bound) or more, was -1");
        assertThatThrownBy(() -> new MemoryRetention(1, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memory max age must be zero");
    }
}
