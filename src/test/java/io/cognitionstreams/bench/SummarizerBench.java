package io.cognitionstreams.bench;

import java.util.Optional;
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

import io.cognitionstreams.assembly.compression.ExtractiveSummarizer;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * Latency of one local extractive summarization (embedding every sentence with all-MiniLM-L6-v2), uncached, of prose
 * and of a protocol whose rule lines must all be kept.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class SummarizerBench {

    @Param({"500", "2000"})
    public int inputTokens;

    /** {@code prose}: English prose alone; {@code protocol}: prose lines with a rule line after every few. */
    @Param({"prose", "protocol"})
    public String kind;

    private ExtractiveSummarizer summarizer;
    private TokenCounter counter;
    private String text;

    @Setup
    public void setUp() {
        counter = new Tokenizers().forModel("gpt-4o");
        summarizer = new ExtractiveSummarizer(MiniLmEmbedder.shared());
        text = kind.equals("protocol") ? BenchTexts.protocol(inputTokens, counter)
                : counter.prefix(BenchTexts.englishProse(inputTokens * 8), inputTokens);
    }

    @Benchmark
    public Optional<String> summarizeToAFifth() {
        return summarizer.summarize(text, inputTokens / 5, counter);
    }
}
