package io.cognitionstreams.bench;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.cognitionstreams.assembly.MemoryIndex;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.embeddings.Vectors;

/**
 * The two costs episodic memory adds to a request: embedding its prompt (every prompt new, so no cache helps) with
 * all-MiniLM-L6-v2 or with the static table distilled from it, and the search over the index of decoded memories at
 * several sizes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class EpisodicMemoryBench {

    /** Every memory in one scope: a search scans one scope's shelf, so this is the size that matters. */
    private static final String SCOPE = "bench";

    @Param({"1000", "10000", "100000"})
    public int memories;

    private MemoryIndex index;
    /** The same memories, never shortlisted: what the default index does at 20,000 and below. */
    private MemoryIndex exact;
    private float[][] queries;
    private int next;
    private String[] prompts;
    private StaticEmbedder staticTable;

    @Setup
    public void setUp() {
        Random random = new Random(42);
        index = new MemoryIndex();
        exact = new MemoryIndex(Integer.MAX_VALUE, 0);
        for (int i = 0; i < memories; i++) {
            float[] vector = Vectors.unit(gaussian(random));
            index.put("b" + i, SCOPE, "memory " + i, 0, vector);
            exact.put("b" + i, SCOPE, "memory " + i, 0, vector);
        }
        queries = new float[64][];
        for (int i = 0; i < queries.length; i++) {
            queries[i] = Vectors.unit(gaussian(random));
        }
        MiniLmEmbedder.shared().load();
        staticTable = StaticEmbedder.cachedIn(StaticEmbedder.defaultCache());
        String prose = BenchTexts.englishProse(200_000);
        prompts = new String[4096];
        for (int i = 0; i < prompts.length; i++) {
            int start = random.nextInt(prose.length() - 400);
            prompts[i] = i + " " + prose.substring(start, start + 80 + random.nextInt(240));
        }
    }

    @Benchmark
    public List<MemoryIndex.Hit> searchTop3() {
        // Random unit vectors are nearly orthogonal, so the threshold is 0 to make every entry a candidate.
        return index.nearest(SCOPE, queries[next++ & 63], 3, 0.0, Long.MAX_VALUE);
    }

    @Benchmark
    public List<MemoryIndex.Hit> searchTop3Exact() {
        return exact.nearest(SCOPE, queries[next++ & 63], 3, 0.0, Long.MAX_VALUE);
    }

    @Benchmark
    public float[] embedPrompt() {
        return MiniLmEmbedder.shared().embed(List.of(prompts[next++ & 4095])).get(0);
    }

    @Benchmark
    public float[] embedPromptStatic() {
        return staticTable.embed(prompts[next++ & 4095]);
    }

    private static float[] gaussian(Random random) {
        float[] vector = new float[384];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = (float) random.nextGaussian();
        }
        return vector;
    }
}
