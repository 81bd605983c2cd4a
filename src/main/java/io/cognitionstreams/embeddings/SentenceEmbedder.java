package io.cognitionstreams.embeddings;

import java.util.List;

/** Turns sentences into vectors whose cosine similarity tracks meaning. */
public interface SentenceEmbedder {

    /** One vector per sentence, in the order given; all of one dimension. */
    List<float[]> embed(List<String> sentences);
}
