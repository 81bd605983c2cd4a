package io.cognitionstreams.bench;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.serialization.Deserializer;
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

import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.topics.Topics;

/**
 * Reading one record as every capability reads each record it consumes: the strict walk of the body, then Avro's
 * decoder. An LLM output of {@code bytes} bytes of prose (ASCII) or of prose with a multi-byte character every few
 * words. Run with {@code -prof gc} for the bytes allocated per record.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class DecodingBench {

    @Param({"1024", "16384"})
    public int bytes;

    @Param({"ascii", "accented"})
    public String text;

    private Deserializer<LlmOutput> deserializer;
    private byte[] record;

    @Setup
    public void setUp() {
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        String prose = BenchTexts.englishProse(bytes);
        if (text.equals("accented")) {
            prose = prose.replace(" the ", " thé ");
        }
        LlmOutput output = LlmOutput.newBuilder().setOutputId("o-1").setPacketId("p-1").setRequestId("r-1")
                .setSessionId("session-1").setModel("bench").setText("RESPONSE: " + prose)
                .setTimestamp(Instant.EPOCH).build();
        record = topics.llmOutputs.valueSerde().serializer().serialize(topics.llmOutputs.name(), output);
        deserializer = topics.llmOutputs.valueSerde().deserializer();
    }

    @Benchmark
    public LlmOutput read() {
        return deserializer.deserialize("llm.outputs", record);
    }
}
