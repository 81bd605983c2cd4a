package io.cognitionstreams.assembly.compression;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.cognitionstreams.assembly.compression.Sentences.Unit;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.embeddings.SentenceEmbedder;
import io.cognitionstreams.embeddings.Vectors;

/**
 * Local, deterministic extractive summarizer: keeps whole sentences, never cuts one.
 *
 * <p>Each sentence is embedded and scored by centrality, the cosine similarity to the document's centroid.
 * Sentences are then taken in maximal-marginal-relevance order ({@code lambda * centrality - (1 - lambda) *
 * highest similarity to a sentence already taken}, ties to the earlier sentence) while the joined extract still
 * fits the budget; one that would not fit is passed over and smaller ones may still go in. The extract keeps the
 * original order and line breaks.
 *
 * <p>Directive-like units (rules such as "Never ...", markers such as "RULES:") are taken before everything else
 * and must all fit: an extract that silently drops a rule is worse than none, since the model tiers can still
 * rephrase it shorter.
 */
public final class ExtractiveSummarizer {

    /** Mostly centrality, with enough diversity to skip a near-repeat of a sentence already kept. */
    public static final double DEFAULT_LAMBDA = 0.7;

    private final SentenceEmbedder embedder;
    private final double lambda;

    public ExtractiveSummarizer(SentenceEmbedder embedder) {
        this(embedder, DEFAULT_LAMBDA);
    }

    /** @param lambda 1 ranks by centrality alone; lower values favour sentences unlike those already kept */
    public ExtractiveSummarizer(SentenceEmbedder embedder, double lambda) {
        if (!(lambda >= 0 && lambda <= 1)) {
            throw new IllegalArgumentException("lambda must be in [0, 1], was " + lambda);
        }
        this.embedder = embedder;
        this.lambda = lambda;
    }

    /**
     * The extract of {@code text} in at most {@code targetTokens} tokens of {@code counter}, or empty when none
     * exists: the best-ranked sentence or some directive alone does not fit, or the text has no sentence.
     */
    public Optional<String> summarize(String text, int targetTokens, TokenCounter counter) {
        List<Unit> units = Sentences.split(text);
        if (units.isEmpty() || targetTokens <= 0) {
            return Optional.empty();
        }
        List<String> sentences = new ArrayList<>(units.size());
        for (Unit unit : units) {
            sentences.add(unit.text());
        }
        float[][] vectors = normalized(embedder.embed(sentences));
        double[] centrality = centrality(vectors);

        int n = units.size();
        boolean[] kept = new boolean[n];
        boolean[] decided = new boolean[n];
        double[] redundancy = new double[n];
        boolean anyKept = false;
        for (int step = 0; step < n; step++) {
            int best = next(units, decided, centrality, redundancy, anyKept);
            decided[best] = true;
            kept[best] = true;
            if (counter.count(render(units, kept)) > targetTokens) {
                kept[best] = false;
                if (!anyKept || units.get(best).directive()) {
                    return Optional.empty();
                }
                continue;
            }
            anyKept = true;
            for (int i = 0; i < n; i++) {
                if (!decided[i]) {
                    redundancy[i] = Math.max(redundancy[i], dot(vectors[i], vectors[best]));
                }
            }
        }
        return Optional.of(render(units, kept));
    }

    /** The undecided unit to try next: directives first, then the highest MMR score, then the earliest. */
    private int next(List<Unit> units, boolean[] decided, double[] centrality, double[] redundancy,
            boolean anyKept) {
        int best = -1;
        double bestScore = 0;
        for (int i = 0; i < units.size(); i++) {
            if (decided[i]) {
                continue;
            }
            // Before anything is kept there is nothing to be redundant with.
            double score = anyKept ? lambda * centrality[i] - (1 - lambda) * redundancy[i] : centrality[i];
            boolean better = best < 0
                    || units.get(i).directive() && !units.get(best).directive()
                    || units.get(i).directive() == units.get(best).directive() && score > bestScore;
            if (better) {
                best = i;
                bestScore = score;
            }
        }
        return best;
    }

    private static String render(List<Unit> units, boolean[] kept) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < units.size(); i++) {
            if (kept[i]) {
                if (out.length() > 0) {
                    out.append(units.get(i).startsLine() ? '\n' : ' ');
                }
                out.append(units.get(i).text());
            }
        }
        return out.toString();
    }

    private static double[] centrality(float[][] vectors) {
        int dimension = vectors[0].length;
        float[] centroid = new float[dimension];
        for (float[] vector : vectors) {
            for (int d = 0; d < dimension; d++) {
                centroid[d] += vector[d];
            }
        }
        centroid = Vectors.unit(centroid);
        double[] scores = new double[vectors.length];
        for (int i = 0; i < vectors.length; i++) {
            scores[i] = dot(vectors[i], centroid);
        }
        return scores;
    }

    private static float[][] normalized(List<float[]> embeddings) {
        float[][] vectors = new float[embeddings.size()][];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = Vectors.unit(embeddings.get(i));
        }
        return vectors;
    }

    private static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int d = 0; d < a.length; d++) {
            sum += (double) a[d] * b[d];
        }
        return sum;
    }
}
