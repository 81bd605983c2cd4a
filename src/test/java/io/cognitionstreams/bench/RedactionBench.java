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

import io.cognitionstreams.redaction.Redaction;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.redaction.StreamingRedactor;

/**
 * {@link Redactor#redact} of one 4 KB block, in microseconds per block:
 * <ul>
 *   <li>{@code ascii}: English prose with an e-mail address, a phone number and a password every 600 characters;</li>
 *   <li>{@code multilingual}: the same with German, Russian and Japanese sentences, nothing that normalisation
 *       changes;</li>
 *   <li>{@code obfuscated}: the ascii block with its PII hidden by a zero-width space, no-break spaces and a
 *       Cyrillic letter.</li>
 * </ul>
 * {@code streamed} is the same block redacted as a model would stream it, four characters at a time, through
 * {@link StreamingRedactor} (`run --model-stream`): what holding back and checking each cut cost.
 * {@code unterminatedPemLabels} is the hostile case of the private-key scan: 500 KB of distinct BEGIN lines of
 * private keys that never end, in milliseconds per input (average time: a single shot measures a cold JIT).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class RedactionBench {

    private static final Redactor REDACTOR = Redactor.defaults();
    private static final String PII = " Mail oncall@example.com or call +44 20 7946 0958, password=hunter2.\n";
    private static final String PII_OBFUSCATED =
            " Mail oncall@exa\u200bmple.com or call +44\u00a020\u00a07946\u00a00958, \u0440assword=hunter2.\n";
    private static final String[] FOREIGN = {
            " Der Build läuft wieder, alle Integrationstests sind grün.",
            " Сборка снова проходит, все интеграционные тесты зелёные.",
            " ビルドは再び通り、すべての統合テストが成功しました。"};

    @State(Scope.Benchmark)
    public static class Block {

        @Param({"ascii", "multilingual", "obfuscated"})
        public String text;

        String block;

        @Setup
        public void setUp() {
            String prose = BenchTexts.englishProse(8192);
            StringBuilder out = new StringBuilder();
            for (int at = 0, k = 0; out.length() < 4096; at += 600, k++) {
                out.append(prose, at, at + 600);
                if (text.equals("multilingual")) {
                    out.append(FOREIGN[k % FOREIGN.length]);
                }
                out.append(text.equals("obfuscated") ? PII_OBFUSCATED : PII);
            }
            block = out.toString();
            System.out.printf("%n%s: %d chars, %d tags%n", text, block.length(), REDACTOR.redact(block).total());
        }
    }

    @State(Scope.Benchmark)
    public static class PemLabels {

        String text;

        @Setup
        public void setUp() {
            StringBuilder labels = new StringBuilder();
            for (int i = 0; labels.length() < 500_000; i++) {
                labels.append("-----BEGIN K").append(i).append(" PRIVATE KEY-----\n");
            }
            text = labels.toString();
        }
    }

    @Benchmark
    public Redaction redact(Block block) {
        return REDACTOR.redact(block.block);
    }

    @Benchmark
    public int streamed(Block block) {
        StreamingRedactor streaming = new StreamingRedactor(REDACTOR);
        String text = block.block;
        int released = 0;
        for (int at = 0; at < text.length(); at += 4) {
            released += streaming.append(text.substring(at, Math.min(text.length(), at + 4))).length();
        }
        return released + streaming.finish().length();
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Redaction unterminatedPemLabels(PemLabels labels) {
        return REDACTOR.redact(labels.text);
    }
}
