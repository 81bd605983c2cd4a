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
import io.cognitionstreams.embeddings.Vectors;

/**
 * The two costs episodic memory adds to a request: embedding its prompt with all-MiniLM-L6-v2 (every prompt new,
 * so no cache helps), and the exact search over the index of decoded memories at several sizes.
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
    private float[][] queries;
    private int next;
    private String[] prompts;

    @Setup
    public void setUp() {
        Random random = new Random(42);
        index = new MemoryIndex();
        for (int i = 0; i < memories; i++) {
            index.put("b" + i, SCOPE, "memory " + i, 0, Vectors.unit(gaussian(random)));
        }
        queries = new float[64][];
        for (int i = 0; i < queries.length; i++) {
            queries[i] = Vectors.unit(gaussian(random));
        }
        MiniLmEmbedder.shared().load();
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
    public float[] embedPrompt() {
        return MiniLmEmbedder.shared().embed(List.of(prompts[next++ & 4095])).get(0);
    }

    private static float[] gaussian(Random random) {
        float[] vector = new float[384];
        for (int i = 0; i < vector.length; i++) {
            vector[i] = (float) random.nextGaussian();
        }
        return vector;
    }
}
