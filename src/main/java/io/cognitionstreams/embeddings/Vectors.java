package io.cognitionstreams.embeddings;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Arithmetic on embedding vectors shared by their users (the summarizer, episodic memory). */
public final class Vectors {

    private Vectors() {
    }

    /** A copy scaled to length 1, so a dot product is the cosine; a zero vector stays zero. */
    public static float[] unit(float[] vector) {
        double squares = 0;
        for (float value : vector) {
            squares += (double) value * value;
        }
        float[] unit = vector.clone();
        if (squares > 0) {
            float norm = (float) Math.sqrt(squares);
            for (int d = 0; d < unit.length; d++) {
                unit[d] /= norm;
            }
        }
        return unit;
    }

    /** {@code vector} as 4-byte little-endian IEEE 754 floats: how vectors travel and are stored. */
    public static ByteBuffer toBytes(float[] vector) {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(vector);
        return bytes;
    }

    /**
     * The floats of {@code bytes} (from its position, which is left as it was).
     *
     * @throws IllegalArgumentException its length is not a whole number of floats
     */
    public static float[] fromBytes(ByteBuffer bytes) {
        if (bytes.remaining() % Float.BYTES != 0) {
            throw new IllegalArgumentException(bytes.remaining() + " bytes are not a whole number of 4-byte floats");
        }
        float[] vector = new float[bytes.remaining() / Float.BYTES];
        bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
        return vector;
    }
}
