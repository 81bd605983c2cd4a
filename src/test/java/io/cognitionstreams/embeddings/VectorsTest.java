package io.cognitionstreams.embeddings;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VectorsTest {

    @Test
    void unitScalesACopyToLengthOneAndLeavesZeroAlone() {
        float[] vector = {3, 4};

        assertThat(Vectors.unit(vector)).containsExactly(0.6f, 0.8f);
        assertThat(vector).containsExactly(3, 4);
        assertThat(Vectors.unit(new float[] {0, 0})).containsExactly(0f, 0f);
    }
}
