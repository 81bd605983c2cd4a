package io.cognitionstreams.embeddings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import org.junit.jupiter.api.Test;

class VectorsTest {

    @Test
    void unitScalesACopyToLengthOneAndLeavesZeroAlone() {
        float[] vector = {3, 4};

        assertThat(Vectors.unit(vector)).containsExactly(0.6f, 0.8f);
        assertThat(vector).containsExactly(3, 4);
        assertThat(Vectors.unit(new float[] {0, 0})).containsExactly(0f, 0f);
    }

    @Test
    void eightBitsAreAScaleThenOneByteADimension() {
        ByteBuffer bytes = Vectors.toInt8(new float[] {0.5f, -1f, 0.25f});

        assertThat(bytes.remaining()).isEqualTo(4 + 3);
        assertThat(bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN).getFloat()).isEqualTo(1f / 127);
        assertThat(new byte[] {bytes.get(4), bytes.get(5), bytes.get(6)}).containsExactly(64, -127, 32);
        assertThat(Vectors.fromInt8(bytes)).containsExactly(64f / 127, -1f, 32f / 127);
        assertThat(bytes.position()).as("left where it was").isZero();
        assertThat(Vectors.fromInt8(Vectors.toInt8(new float[] {0, 0}))).as("a zero vector").containsExactly(0f, 0f);
    }

    @Test
    void aUnitVectorComesBackWithinHalfAStepADimensionAndItsCosinesWithinAThousandth() {
        Random random = new Random(7);
        float[] a = randomUnit(random);
        float[] b = randomUnit(random);
        float step = largest(a) / 127;

        float[] back = Vectors.int8RoundTrip(a);

        for (int d = 0; d < a.length; d++) {
            assertThat(Math.abs(back[d] - a[d])).isLessThanOrEqualTo(step / 2 + 1e-7f);
        }
        assertThat(dot(back, Vectors.int8RoundTrip(b))).isCloseTo(dot(a, b),
                offset(1e-3f));
        assertThat(Vectors.int8RoundTrip(back)).as("what is kept in 8 bits stays as it is").containsExactly(back);
    }

    @Test
    void malformedEightBitVectorsAreRefusedWithWhy() {
        assertThatThrownBy(() -> Vectors.fromInt8(ByteBuffer.wrap(new byte[] {1, 2, 3})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 bytes hold no scale");
        for (float scale : new float[] {0, -1, Float.NaN, Float.POSITIVE_INFINITY}) {
            ByteBuffer bytes = ByteBuffer.allocate(5).order(ByteOrder.LITTLE_ENDIAN).putFloat(0, scale);
            assertThatThrownBy(() -> Vectors.fromInt8(bytes)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("scale is " + scale);
        }
    }

    private static float[] randomUnit(Random random) {
        float[] vector = new float[384];
        for (int d = 0; d < vector.length; d++) {
            vector[d] = (float) random.nextGaussian();
        }
        return Vectors.unit(vector);
    }

    private static float largest(float[] vector) {
        float largest = 0;
        for (float value : vector) {
            largest = Math.max(largest, Math.abs(value));
        }
        return largest;
    }

    private static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int d = 0; d < a.length; d++) {
            sum += a[d] * b[d];
        }
        return sum;
    }
}
