package io.cognitionstreams.embeddings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.signing.Sha256;

/**
 * A static embedding distilled from all-MiniLM-L6-v2 by Model2Vec's method: a text costs tokenizing, one table row
 * per token, a sum and a normalization (microseconds) instead of a transformer inference (milliseconds). Its vectors
 * live in MiniLM's 384-dim space but are only comparable with vectors of this embedder, never with MiniLM's own.
 *
 * <p>The table is distilled on first use (about 6 s of one core, {@link StaticTableDistiller}) and cached in a
 * directory under a name keyed by the model's SHA-256, so another model never reads a stale table and later starts
 * load it in a fraction of a second. Each row is centered on the vocabulary's mean (the rows share a large common
 * direction that would make every text look alike) and weighted by SIF with token probabilities estimated from the
 * Zipf rank of the vocabulary id, as Model2Vec does without a corpus: frequent tokens count less.
 */
public final class StaticEmbedder implements SentenceEmbedder {

    /** The name entries embedded with it carry: recipe changes need a new name, their vectors differ. */
    public static final String MODEL = "all-MiniLM-L6-v2-q-static-sif";
    public static final int DIMENSION = MiniLmEmbedder.DIMENSION;
    /** Ids below this are [PAD], [UNK], [CLS], [SEP], [MASK] and [unusedN]: no meaning to add. */
    private static final int FIRST_WORD_ID = 999;
    /** Model2Vec's SIF coefficient. */
    private static final double SIF = 1e-4;
    private static final int MAGIC = 0x43535354;
    private static final Logger LOG = LoggerFactory.getLogger(StaticEmbedder.class);

    private final WordPieceTokenizer tokenizer;
    private final float[] rows;

    StaticEmbedder(WordPieceTokenizer tokenizer, float[] distilled) {
        this.tokenizer = tokenizer;
        this.rows = weighted(distilled, tokenizer.vocabularySize());
    }

    /** The embedder over the table cached in {@code directory}, distilled and written there first if missing. */
    public static StaticEmbedder cachedIn(Path directory) {
        WordPieceTokenizer tokenizer = WordPieceTokenizer.miniLm();
        byte[] model = StaticTableDistiller.modelBytes();
        Path file = directory.resolve("all-minilm-l6-v2-q-static-" + sha256(model).substring(0, 16) + ".f32");
        int expected = tokenizer.vocabularySize() * DIMENSION;
        float[] table = read(file, tokenizer.vocabularySize());
        if (table == null) {
            long start = System.nanoTime();
            table = StaticTableDistiller.distill(model, tokenizer.vocabularySize(), DIMENSION, 1);
            LOG.info("distilled a static embedding table from all-MiniLM-L6-v2 in {} ms", (System.nanoTime() - start)
                    / 1_000_000);
            write(file, table, tokenizer.vocabularySize());
        }
        if (table.length != expected) {
            throw new IllegalStateException("static table " + file + " has " + table.length + " values");
        }
        return new StaticEmbedder(tokenizer, table);
    }

    /** Where tables are cached unless told otherwise: $XDG_CACHE_HOME/cognition-streams or ~/.cache/... */
    public static Path defaultCache() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("cognition-streams");
    }

    @Override
    public List<float[]> embed(List<String> sentences) {
        List<float[]> vectors = new ArrayList<>(sentences.size());
        for (String sentence : sentences) {
            vectors.add(embed(sentence));
        }
        return vectors;
    }

    /** Unit length; all zeros for a text with no word in the vocabulary (empty, whitespace, only unknown tokens). */
    public float[] embed(String sentence) {
        float[] sum = new float[DIMENSION];
        for (int id : tokenizer.encode(sentence)) {
            if (id < FIRST_WORD_ID) {
                continue;
            }
            int offset = id * DIMENSION;
            for (int d = 0; d < DIMENSION; d++) {
                sum[d] += rows[offset + d];
            }
        }
        return Vectors.unit(sum);
    }

    private static float[] weighted(float[] distilled, int vocabularySize) {
        double[] mean = new double[DIMENSION];
        for (int id = FIRST_WORD_ID; id < vocabularySize; id++) {
            for (int d = 0; d < DIMENSION; d++) {
                mean[d] += distilled[id * DIMENSION + d];
            }
        }
        for (int d = 0; d < DIMENSION; d++) {
            mean[d] /= vocabularySize - FIRST_WORD_ID;
        }
        float[] rows = new float[distilled.length];
        double harmonic = Math.log(vocabularySize);
        for (int id = 0; id < vocabularySize; id++) {
            // Zipf: the token of rank r has probability about 1 / (r * ln V).
            double probability = 1.0 / ((id + 1) * harmonic);
            double weight = SIF / (SIF + probability);
            for (int d = 0; d < DIMENSION; d++) {
                rows[id * DIMENSION + d] = (float) ((distilled[id * DIMENSION + d] - mean[d]) * weight);
            }
        }
        return rows;
    }

    /** The cached table, or null when there is none or it is not whole (a crash while writing, another format). */
    static float[] read(Path file, int vocabularySize) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
            if (bytes.remaining() != 12 + vocabularySize * DIMENSION * 4 || bytes.getInt() != MAGIC
                    || bytes.getInt() != vocabularySize || bytes.getInt() != DIMENSION) {
                LOG.warn("ignoring static embedding table {}: not a whole table of this vocabulary", file);
                return null;
            }
            float[] table = new float[vocabularySize * DIMENSION];
            bytes.asFloatBuffer().get(table);
            return table;
        } catch (IOException e) {
            LOG.warn("cannot read static embedding table {}: {}", file, e.toString());
            return null;
        }
    }

    /** Written to a temporary file and moved, so a reader never sees half a table; a failure only costs caching. */
    static void write(Path file, float[] table, int vocabularySize) {
        try {
            Files.createDirectories(file.getParent());
            ByteBuffer bytes = ByteBuffer.allocate(12 + table.length * 4);
            bytes.putInt(MAGIC).putInt(vocabularySize).putInt(DIMENSION);
            bytes.asFloatBuffer().put(table);
            Path temporary = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            Files.write(temporary, bytes.array());
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot cache the static embedding table in {}: {}; it is distilled again next start",
                    file.getParent(), e.toString());
        }
    }

    private static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(Sha256.of(bytes));
    }
}
