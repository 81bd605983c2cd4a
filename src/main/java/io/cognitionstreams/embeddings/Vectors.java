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

    /**
     * {@code vector} in 8 bits, into {@code into} from {@code at}: each dimension as the nearest multiple of the
     * vector's largest magnitude / 127: a unit vector of 384 dimensions comes back within about a hundredth of its
     * length, and its cosines within about a thousandth.
     *
     * @return the multiple (1 for a zero vector), by which a byte gives back its dimension
     */
    public static float quantize(float[] vector, byte[] into, int at) {
        float largest = 0;
        for (float value : vector) {
            largest = Math.max(largest, Math.abs(value));
        }
        float scale = largest == 0 ? 1 : largest / 127;
        for (int d = 0; d < vector.length; d++) {
            into[at + d] = (byte) Math.max(-127, Math.min(127, Math.round(vector[d] / scale)));
        }
        return scale;
    }

    /**
     * {@code vector} as episodic memory keeps and sends it: its {@link #quantize scale} as a 4-byte little-endian
     * float, then one signed byte a dimension. A quarter of the floats' bytes, which every entry pays on
     * cognition.memory, again in its store's changelog, and each prompt in the lookup of a shared scope.
     */
    public static ByteBuffer toInt8(float[] vector) {
        byte[] bytes = new byte[Float.BYTES + vector.length];
        float scale = quantize(vector, bytes, Float.BYTES);
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putFloat(0, scale);
        return buffer;
    }

    /**
     * The floats of {@link #toInt8}'s form (from {@code bytes}' position, which is left as it was).
     *
     * @throws IllegalArgumentException it has no scale, or a scale that is not a positive finite number
     */
    public static float[] fromInt8(ByteBuffer bytes) {
        ByteBuffer in = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (in.remaining() < Float.BYTES) {
            throw new IllegalArgumentException(in.remaining() + " bytes hold no scale: an 8-bit vector starts with "
                    + "its 4-byte scale");
        }
        float scale = in.getFloat();
        if (!(scale > 0) || !Float.isFinite(scale)) {
            throw new IllegalArgumentException("the 8-bit vector's scale is " + scale + ", not a positive number");
        }
        float[] vector = new float[in.remaining()];
        for (int d = 0; d < vector.length; d++) {
            vector[d] = in.get() * scale;
        }
        return vector;
    }

    /** What {@code vector} reads as once sent as {@link #toInt8}: how a prompt searches memory kept so. */
    public static float[] int8RoundTrip(float[] vector) {
        return fromInt8(toInt8(vector));
    }

    /**
     * The floats of {@code bytes} (from its position, which is left as it was): 4-byte little-endian IEEE 754, as
     * memory vectors were sent before {@link #toInt8}.
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
