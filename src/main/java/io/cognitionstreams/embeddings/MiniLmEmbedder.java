package io.cognitionstreams.embeddings;

import java.util.ArrayList;
import java.util.List;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * all-MiniLM-L6-v2 (quantized, 384 dimensions) run in-process through ONNX Runtime. Model, runtime and tokenizer
 * ship in the jars, so nothing is fetched at run time. One instance per JVM: the model is loaded on first use
 * (or by {@link #load()}) and is safe to share between threads.
 */
public final class MiniLmEmbedder implements SentenceEmbedder {

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

    /** Class initialisation loads the model once, lazily and thread-safely. */
    private static final class Model {
        // Runnable::run embeds on the caller's thread: no hidden pool competing with the stream threads, and
        // ONNX Runtime already spreads one inference over the cores.
        static final EmbeddingModel INSTANCE = new AllMiniLmL6V2QuantizedEmbeddingModel(Runnable::run);
    }
}
