package io.cognitionstreams.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;

class MetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void add() {
        Telemetry.add(registry);
    }

    @AfterEach
    void remove() {
        Telemetry.remove(registry);
    }

    @Test
    void countsWhatATopologyWritesByWhatItSaysNeverByWhoItIsAbout() {
        PipelineEvent drift = PipelineEvent.newBuilder().setEventId("e1").setType("DRIFT").setSessionId("s-secret")
                .setMessage("denied").setTimestamp(Instant.EPOCH).build();
        Meters.written("app-gatekeeper", "cognition.events", drift);
        Meters.written("app-gatekeeper", "cognition.events", drift);
        ToolResult result = ToolResult.newBuilder().setCallId("c1").setSessionId("s-secret").setTool("shell.run")
                .setSuccess(true).setStatus(ToolStatus.SUCCEEDED).setExecutor("mcp:workspace").setDurationMs(120L)
                .setTimestamp(Instant.EPOCH).build();
        Meters.written("app-gatekeeper", "tool.results", result);
        Meters.written("app-assembly", "tool.outcomes", result);

        assertThat(registry.get(Meters.EVENTS).tag("type", "DRIFT").counter().count()).isEqualTo(2);
        assertThat(registry.get(Meters.TOOL_CALLS).tag("status", "SUCCEEDED").tag("executor", "mcp:workspace")
                .counter().count()).as("tool.results only: a result is counted once").isEqualTo(1);
        assertThat(registry.get(Meters.TOOL_DURATION).timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
                .isEqualTo(120);
        assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTags())
                .noneMatch(tag -> tag.getValue().contains("s-secret") || tag.getValue().equals("c1")));
    }

    @Test
    void aLabelFromRecordsKeepsItsFirstValuesAndCountsTheRestAsOther() {
        for (int i = 0; i < Meters.MAX_VALUES + 20; i++) {
            Meters.answered("model-" + i, 10, 5, Duration.ofMillis(30));
        }
        assertThat(registry.find(Meters.ANSWERS).counters()).hasSizeLessThanOrEqualTo(Meters.MAX_VALUES + 1);
        assertThat(registry.get(Meters.ANSWERS).tag("model", Meters.OTHER).counter().count()).isGreaterThan(0);
        assertThat(registry.get(Meters.TOKENS).tag("model", "model-0").tag("type", "input").counter().count())
                .isEqualTo(10);
    }

    @Test
    void namesTheCapabilityAfterTheApplicationIdOfItsKafkaStreams() {
        assertThat(Meters.capability(Telemetry.applicationId() + "-routing")).isEqualTo("routing");
        assertThat(Meters.capability(null)).isEqualTo(Meters.NONE);
    }
}
