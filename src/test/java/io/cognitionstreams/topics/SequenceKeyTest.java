package io.cognitionstreams.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class SequenceKeyTest {

    @Test
    void aSequenceIsZeroPaddedToTenDigitsAsBefore() {
        for (long sequence : new long[] {0, 7, 42, 999_999_999L, 1_000_000_000L, 9_999_999_999L, 12_345_678_901L,
                Long.MAX_VALUE, -1, Long.MIN_VALUE}) {
            assertThat(Topics.sequenceKey("s-1", sequence)).as("%d", sequence)
                    .isEqualTo("s-1/" + String.format("%010d", sequence));
        }
    }

    @Test
    void aSessionsKeysSortInSequenceOrder() {
        List<String> keys = new ArrayList<>();
        for (long sequence : new long[] {0, 1, 9, 10, 99, 100, 123_456, 9_999_999_999L}) {
            keys.add(Topics.sequenceKey("session", sequence));
        }
        assertThat(keys).isSorted();
    }
}
