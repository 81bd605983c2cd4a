package io.cognitionstreams.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
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

import io.cognitionstreams.routing.DestinationMatrix;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.LlmOutput;

/**
 * Parse + redact + address of one realistic LLM output (markers, prose, a code fence, a little PII), in process.
 * MB/s = ops/s x output size (printed in setup); blocks/s = ops/s x blocks per output.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class RoutingBench {

    @Param({"4096", "65536"})
    public int bytes;

    private OutputRouter router;
    private LlmOutput output;

    @Setup
    public void setUp() {
        router = new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults());
        StringBuilder text = new StringBuilder();
        String prose = BenchTexts.englishProse(bytes * 2);
        int at = 0;
        int block = 0;
        String[] markers = {"PLAN:", "RESPONSE:", "EXECUTE:", "VERIFY:", "THOUGHT_SEED:"};
        while (text.length() < bytes) {
            text.append(markers[block % markers.length]).append(' ')
                    .append(prose, at, at + 300).append('\n');
            if (block % 4 == 1) {
                text.append("Contact ops at oncall@example.com or +44 20 7946 0958 if the job fails.\n")
                        .append("```\nkubectl rollout status deploy/api --timeout=120s\n```\n");
            }
            at += 300;
            block++;
        }
        output = LlmOutput.newBuilder().setOutputId("o").setPacketId("p").setRequestId("r").setSessionId("s")
                .setModel("bench").setText(text.toString()).setTimestamp(Instant.EPOCH).build();
        OutputRouter.Routing routing = router.route(output);
        System.out.printf("%n%d bytes: %d blocks, %d channel records, %d tool calls%n",
                text.toString().getBytes(StandardCharsets.UTF_8).length, routing.markers().size(),
                routing.blocks().size(), routing.toolCalls().size());
    }

    @Benchmark
    public OutputRouter.Routing route() {
        return router.route(output);
    }
}
