package io.cognitionstreams.embeddings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * all-MiniLM-L6-v2 (quantized, 384 dimensions) run in-process through ONNX Runtime. Model, runtime and tokenizer
 * ship in the jars, so nothing is fetched at run time. One instance per JVM: the model is loaded on first use
 * (or by {@link #load()}) and is safe to share between threads.
 *
 * <p>Each inference runs on the calling thread alone. ONNX Runtime would otherwise spread every inference over all
 * cores, and for a sentence that costs more in hand-offs than it gains: two threads embedding at once did 205
 * sentences/s that way and 396/s single-threaded (docs/benchmarks.md). Parallelism comes from the stream threads.
 */
public final class MiniLmEmbedder implements SentenceEmbedder {

    /** The name stored with its vectors (episodic memory's entries). */
    public static final String MODEL = "all-MiniLM-L6-v2-q";
    public static final int DIMENSION = 384;
    private static final MiniLmEmbedder SHARED = new MiniLmEmbedder();

    private MiniLmEmbedder() {
    }

    public static MiniLmEmbedder shared() {
        return SHARED;
    }

    /** Loads the model now (0.5-2 s), e.g. at start-up, so the first record does not pay for it. */
    public void load() {
        Model.INSTANCE.dimension();
    }

    @Override
    public List<float[]> embed(List<String> sentences) {
        if (sentences.isEmpty()) {
            return List.of();
        }
        List<TextSegment> segments = new ArrayList<>(sentences.size());
        for (String sentence : sentences) {
            segments.add(TextSegment.from(sentence));
        }
        List<float[]> vectors = new ArrayList<>(sentences.size());
        for (Embedding embedding : Model.INSTANCE.embedAll(segments).content()) {
            vectors.add(embedding.vector());
        }
        return vectors;
    }

    /** The quantized model and tokenizer from langchain4j's jar, in a session with one intra-op thread. */
    private static final class Model extends AbstractInProcessEmbeddingModel {
        // Class initialisation loads the model once, lazily and thread-safely.
        static final Model INSTANCE = new Model();

        private final OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        private final OnnxBertBiEncoder encoder;

        private Model() {
            // Runnable::run: batches are embedded on the caller's thread, with no hidden pool.
            super(Runnable::run);
            OrtEnvironment environment = OrtEnvironmentPin.environment();
            try (InputStream model = resource("all-minilm-l6-v2-q.onnx");
                 InputStream tokenizer = resource("all-minilm-l6-v2-q-tokenizer.json")) {
                // Kept open for the session's life, which is the JVM's.
                options.setIntraOpNumThreads(1);
                encoder = new OnnxBertBiEncoder(environment, environment.createSession(model.readAllBytes(), options),
                        tokenizer, PoolingMode.MEAN);
            } catch (OrtException e) {
                throw new IllegalStateException("cannot load all-MiniLM-L6-v2: " + e.getMessage(), e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static InputStream resource(String name) {
            InputStream in = AllMiniLmL6V2QuantizedEmbeddingModel.class.getResourceAsStream("/" + name);
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the classpath");
            }
            return in;
        }

        @Override
        protected OnnxBertBiEncoder model() {
            return encoder;
        }

        @Override
        protected Integer knownDimension() {
            return DIMENSION;
        }
    }
}
