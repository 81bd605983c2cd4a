package io.cognitionstreams.bench;

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

import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * Token counting throughput per encoding on English prose never counted before (tokens/s = ops/s x tokens per op,
 * printed in setup). Each operation counts another of 5,000 distinct texts, so TokenCounter's cache of repeated
 * texts never answers: this is the cost of new text, cache bookkeeping included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class TokenCountingBench {

    @Param({"cl100k_base", "o200k_base"})
    public String encoding;

    private static final int TEXTS = 5_000;

    private TokenCounter counter;
    private String[] texts;
    private int next;

    @Setup
    public void setUp() {
        counter = new Tokenizers().forEncodingName(encoding);
        String prose = BenchTexts.englishProse(16 * 1024);
        texts = new String[TEXTS];
        for (int i = 0; i < TEXTS; i++) {
            texts[i] = "Note " + i + ": " + prose;
        }
        System.out.printf("%n%s: ~%d tokens per op (%d chars)%n", encoding,
                new Tokenizers().forEncodingName(encoding).count(texts[0]), texts[0].length());
    }

    @Benchmark
    public int count() {
        next = next + 1 == TEXTS ? 0 : next + 1;
        return counter.count(texts[next]);
    }
}
