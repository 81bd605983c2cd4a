package io.cognitionstreams.embeddings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * Model2Vec's distillation of all-MiniLM-L6-v2 into a static table: every vocabulary token goes through the model
 * once, alone ({@code [CLS] token [SEP]}), many tokens to an ONNX call, and its row is the model's own sentence
 * embedding of that one-token text (mean of the three outputs, unit length). So a row lives in the same 384-dim
 * space as MiniLM's sentence vectors.
 */
final class StaticTableDistiller {

    static final String MODEL_RESOURCE = "/all-minilm-l6-v2-q.onnx";
    /** Tokens per ONNX call: large enough that the per-call overhead vanishes, small enough to stay in cache. */
    private static final int BATCH = 512;

    private StaticTableDistiller() {
    }

    static byte[] modelBytes() {
        try (InputStream in = AllMiniLmL6V2QuantizedEmbeddingModel.class.getResourceAsStream(MODEL_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(MODEL_RESOURCE + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One unit row of {@code dimension} floats per token id, row-major; {@code threads} ONNX intra-op threads. */
    static float[] distill(byte[] model, int vocabularySize, int dimension, int threads) {
        float[] table = new float[vocabularySize * dimension];
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(threads);
            try (OrtSession session = environment.createSession(model, options)) {
                for (int first = 0; first < vocabularySize; first += BATCH) {
                    int count = Math.min(BATCH, vocabularySize - first);
                    long[][] ids = new long[count][];
                    long[][] mask = new long[count][];
                    long[][] types = new long[count][];
                    for (int i = 0; i < count; i++) {
                        ids[i] = new long[] {WordPieceTokenizer.CLS, first + i, WordPieceTokenizer.SEP};
                        mask[i] = new long[] {1, 1, 1};
                        types[i] = new long[3];
                    }
                    Map<String, OnnxTensor> inputs = new HashMap<>();
                    try (OnnxTensor idTensor = OnnxTensor.createTensor(environment, ids);
                         OnnxTensor maskTensor = OnnxTensor.createTensor(environment, mask);
                         OnnxTensor typeTensor = OnnxTensor.createTensor(environment, types)) {
                        inputs.put("input_ids", idTensor);
                        inputs.put("attention_mask", maskTensor);
                        inputs.put("token_type_ids", typeTensor);
                        try (OrtSession.Result result = session.run(inputs)) {
                            float[][][] hidden = (float[][][]) result.get(0).getValue();
                            for (int i = 0; i < count; i++) {
                                meanUnit(hidden[i], table, (first + i) * dimension, dimension);
                            }
                        }
                    }
                }
            }
        } catch (OrtException e) {
            throw new IllegalStateException("cannot distill all-MiniLM-L6-v2: " + e.getMessage(), e);
        }
        return table;
    }

    private static void meanUnit(float[][] positions, float[] table, int offset, int dimension) {
        double squares = 0;
        for (int d = 0; d < dimension; d++) {
            float sum = 0;
            for (float[] position : positions) {
                sum += position[d];
            }
            table[offset + d] = sum / positions.length;
            squares += (double) table[offset + d] * table[offset + d];
        }
        float norm = (float) Math.sqrt(squares);
        if (norm > 0) {
            for (int d = 0; d < dimension; d++) {
                table[offset + d] /= norm;
            }
        }
    }
}
