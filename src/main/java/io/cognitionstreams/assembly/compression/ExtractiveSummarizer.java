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
 * <p>Rules ({@link Rules}: imperatives, MUST/NEVER/ALWAYS, numbered items, key-value lines, JSON blocks) are kept
 * word for word before anything else, and must all fit; the sentences then fill what budget they leave. An extract
 * that silently drops a rule is worse than none: the chain goes on to the model tiers, or the field is refused.
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
     * exists: its rules alone do not fit, or it has no rule and its best-ranked sentence alone does not fit.
     */
    public Optional<String> summarize(String text, int targetTokens, TokenCounter counter) {
        List<Unit> units = Sentences.split(text);
        if (units.isEmpty() || targetTokens <= 0) {
            return Optional.empty();
        }
        int n = units.size();
        boolean[] kept = new boolean[n];
        boolean anyKept = false;
        for (int i = 0; i < n; i++) {
            kept[i] = units.get(i).rule();
            anyKept |= kept[i];
        }
        if (anyKept && counter.count(render(units, kept)) > targetTokens) {
            return Optional.empty();
        }
        if (anyKept && !roomForMore(units, kept, targetTokens, counter)) {
            // Nothing else could join the rules: no need to embed a sentence.
            return Optional.of(render(units, kept));
        }
        List<String> sentences = new ArrayList<>(n);
        for (Unit unit : units) {
            sentences.add(unit.text());
        }
        float[][] vectors = normalized(embedder.embed(sentences));
        double[] centrality = centrality(vectors);

        boolean[] decided = kept.clone();
        double[] redundancy = new double[n];
        for (int i = 0; i < n; i++) {
            if (kept[i]) {
                addRedundancy(vectors, i, decided, redundancy);
            }
        }
        for (int step = 0; step < n; step++) {
            int best = next(decided, centrality, redundancy, anyKept);
            if (best < 0) {
                break;
            }
            decided[best] = true;
            kept[best] = true;
            if (counter.count(render(units, kept)) > targetTokens) {
                kept[best] = false;
                if (!anyKept) {
                    return Optional.empty();
                }
                continue;
            }
            anyKept = true;
            addRedundancy(vectors, best, decided, redundancy);
        }
        return Optional.of(render(units, kept));
    }

    /** Whether the budget the rules leave could hold the smallest other unit (counted alone, a lower bound). */
    private static boolean roomForMore(List<Unit> units, boolean[] kept, int targetTokens, TokenCounter counter) {
        int left = targetTokens - counter.count(render(units, kept));
        for (int i = 0; i < units.size(); i++) {
            if (!kept[i] && counter.count(units.get(i).text()) <= left) {
                return true;
            }
        }
        return false;
    }

    private static void addRedundancy(float[][] vectors, int kept, boolean[] decided, double[] redundancy) {
        for (int i = 0; i < vectors.length; i++) {
            if (!decided[i]) {
                redundancy[i] = Math.max(redundancy[i], dot(vectors[i], vectors[kept]));
            }
        }
    }

    /** The undecided unit to try next: the highest MMR score, then the earliest; -1 when none is left. */
    private int next(boolean[] decided, double[] centrality, double[] redundancy, boolean anyKept) {
        int best = -1;
        double bestScore = 0;
        for (int i = 0; i < decided.length; i++) {
            if (decided[i]) {
                continue;
            }
            // Before anything is kept there is nothing to be redundant with.
            double score = anyKept ? lambda * centrality[i] - (1 - lambda) * redundancy[i] : centrality[i];
            if (best < 0 || score > bestScore) {
                best = i;
                bestScore = score;
            }
        }
        return best;
    }

    /** Kept units in order: a line break between units of different lines, a space within a paragraph. */
    private static String render(List<Unit> units, boolean[] kept) {
        StringBuilder out = new StringBuilder();
        int line = -1;
        for (int i = 0; i < units.size(); i++) {
            if (kept[i]) {
                if (out.length() > 0) {
                    out.append(units.get(i).line() != line ? '\n' : ' ');
                }
                out.append(units.get(i).text());
                line = units.get(i).line();
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
