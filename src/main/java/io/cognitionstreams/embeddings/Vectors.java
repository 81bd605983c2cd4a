package io.cognitionstreams.embeddings;

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
}
