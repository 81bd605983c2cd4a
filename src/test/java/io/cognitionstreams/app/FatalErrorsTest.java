package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;

class FatalErrorsTest {

    @Test
    void anOutOfMemoryErrorIsFatalWhereverItIsInTheCauses() {
        OutOfMemoryError heap = new OutOfMemoryError("Java heap space");

        assertThat(FatalErrors.outOfMemory(heap)).isTrue();
        assertThat(FatalErrors.outOfMemory(new StreamsException("task 0_1 failed",
                new IllegalStateException("restore", heap)))).isTrue();
    }

    @Test
    void otherErrorsAreNot() {
        assertThat(FatalErrors.outOfMemory(new StreamsException("fenced", new IllegalStateException()))).isFalse();
        assertThat(FatalErrors.outOfMemory(new StackOverflowError())).isFalse();
    }
}
