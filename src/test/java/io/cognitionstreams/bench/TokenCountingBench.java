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

/** Token counting throughput per encoding, on English prose (tokens/s = ops/s x tokens per op, printed in setup). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class TokenCountingBench {

    @Param({"cl100k_base", "o200k_base"})
    public String encoding;

    private TokenCounter counter;
    private String text;

    @Setup
    public void setUp() {
        counter = new Tokenizers().forEncodingName(encoding);
        text = BenchTexts.englishProse(64 * 1024);
        System.out.printf("%n%s: %d tokens per op (%d chars)%n", encoding, counter.count(text), text.length());
    }

    @Benchmark
    public int count() {
        return counter.count(text);
    }
}
