package io.cognitionstreams.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

class OffsetMetadataTest {

    @Test
    void listsTheRunsNotDoneAboveTheBase() {
        // base 100, span 50, not done: 100 (the base), 103, 104, 120
        OffsetMetadata.Above above = OffsetMetadata.Above.of(50, new long[] {3, 4, 20});
        String text = OffsetMetadata.encode(above);
        assertThat(text).isEqualTo("p1:1e,2.2,f.1");
        OffsetMetadata.Above read = OffsetMetadata.decode(text).orElseThrow();
        assertThat(read.span()).isEqualTo(50);
        assertThat(read.done(0)).as("the base is never done").isFalse();
        assertThat(read.done(1)).isTrue();
        assertThat(read.done(2)).isTrue();
        assertThat(read.done(3)).isFalse();
        assertThat(read.done(4)).isFalse();
        assertThat(read.done(5)).isTrue();
        assertThat(read.done(20)).isFalse();
        assertThat(read.done(49)).isTrue();
        assertThat(read.done(50)).as("beyond the span the commit says nothing").isFalse();
    }

    @Test
    void nothingAboveTheBaseIsTheEmptyText() {
        assertThat(OffsetMetadata.encode(OffsetMetadata.Above.NOTHING)).isEmpty();
        assertThat(OffsetMetadata.decode("").orElseThrow().span()).isZero();
        assertThat(OffsetMetadata.decode(null).orElseThrow().span()).isZero();
        assertThat(OffsetMetadata.encode(OffsetMetadata.Above.of(7, new long[0]))).isEqualTo("p1:7");
    }

    @Test
    void roundTripsRandomSets() {
        Random random = new Random(7);
        for (int round = 0; round < 500; round++) {
            int span = 1 + random.nextInt(3000);
            TreeSet<Long> notDone = new TreeSet<>();
            for (int i = 0; i < random.nextInt(200); i++) {
                if (span > 1) {
                    notDone.add(1 + (long) random.nextInt(span - 1));
                }
            }
            String text = OffsetMetadata.encode(OffsetMetadata.Above.of(span,
                    notDone.stream().mapToLong(Long::longValue).toArray()));
            OffsetMetadata.Above read = OffsetMetadata.decode(text).orElseThrow();
            for (long offset = 0; offset < span + 2; offset++) {
                assertThat(read.done(offset)).as("%s at %d", text, offset)
                        .isEqualTo(offset > 0 && offset < span && !notDone.contains(offset));
            }
        }
    }

    @Test
    void textInAnotherFormSaysNothingIsDone() {
        for (String foreign : List.of("hello", "p2:5", "p1:", "p1:-5", "p1:5,", "p1:5,1", "p1:5,1.", "p1:5,1.0",
                "p1:5,9.1", "p1:zzzzzzzzzzzzz", "p1:0", "p1:5,+1.1", "p1:a,1.1,-1.1", "p1:5;1.1")) {
            assertThat(OffsetMetadata.decode(foreign)).as(foreign).isEmpty();
        }
    }

    @Test
    void aHugeRunCostsNothingToRead() {
        // An attacker's (or a bug's) metadata naming a trillion offsets is read as runs, never expanded.
        OffsetMetadata.Above read = OffsetMetadata.decode("p1:zzzzzzzzzz,0.zzzzzzzzz").orElseThrow();
        assertThat(read.done(5)).isFalse();
        assertThat(read.done(Long.parseLong("zzzzzzzzzz", 36) - 1)).isTrue();
    }
}
