package io.cognitionstreams.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;

/**
 * Every app series the dashboard, the alert rules and docs/operations.md name is one the app serves: each count of
 * {@link Meters} is made once and the scrape is searched for the names those files use.
 */
class DashboardNamesTest {

    private static final Pattern SERIES = Pattern.compile("\\bcognition_[a-z_]+");
    private static final Path ROOT = Path.of("").toAbsolutePath();

    @Test
    void theDashboardTheAlertsAndTheDocsNameOnlySeriesTheAppServes() throws Exception {
        PrometheusMeterRegistry registry = Telemetry.prometheus("names-test", "i");
        try (Metrics health = new Metrics(new MetricConfig(), List.of(new KafkaMetricsBridge()), Time.SYSTEM,
                new KafkaMetricsContext("cognition.health"))) {
            for (String gauge : List.of("hanging-transactions", "aborted-transactions", "fenced-instances")) {
                health.addMetric(health.metricName(gauge, "transactions", "", Map.of()),
                        (org.apache.kafka.common.metrics.Gauge<Integer>) (config, now) -> 0);
            }
            countEverything();
            Set<String> served = new TreeSet<>();
            Matcher names = SERIES.matcher(registry.scrape());
            while (names.find()) {
                served.add(names.group());
            }
            for (String file : List.of("deploy/grafana/dashboards/cognition-streams.json",
                    "deploy/prometheus/alerts.yml", "docs/operations.md")) {
                Matcher used = SERIES.matcher(Files.readString(ROOT.resolve(file)));
                Set<String> missing = new TreeSet<>();
                while (used.find()) {
                    if (!served.contains(used.group())) {
                        missing.add(used.group());
                    }
                }
                assertThat(missing).as("%s names series the app does not serve (it serves %s)", file, served)
                        .isEmpty();
            }
        } finally {
            Telemetry.remove(registry);
        }
    }

    private static void countEverything() {
        Instant now = Instant.now();
        Meters.answered("m", 1, 1, Duration.ofMillis(5));
        Meters.deadLetter("a-assembly", "DESERIALIZATION", "cognition.requests");
        Meters.written("a-assembly", "cognition.events", PipelineEvent.newBuilder().setEventId("e").setType("DRIFT")
                .setMessage("").setTimestamp(now).build());
        ToolCall call = ToolCall.newBuilder().setCallId("c").setSessionId("s").setTool("t").setCaller("x")
                .setTimestamp(now).build();
        Meters.written("a-gatekeeper", "tool.decisions", ToolDecision.newBuilder().setCall(call)
                .setVerdict(Verdict.DENIED).setReason("").setTimestamp(now).build());
        Meters.written("a-gatekeeper", "tool.results", ToolResult.newBuilder().setCallId("c").setSessionId("s")
                .setTool("t").setSuccess(true).setStatus(ToolStatus.SUCCEEDED).setDurationMs(3L).setTimestamp(now)
                .build());
        Meters.written("a-council", "council.decisions", CouncilDecision.newBuilder().setProposalId("p")
                .setCouncilId("default").setOutcome(CouncilOutcome.EXPIRED).setTimestamp(now).build());
        Meters.written("a-routing", "channel.cli_chat", RoutedBlock.newBuilder().setBlockId("b").setOutputId("o")
                .setPacketId("p").setRequestId("r").setSessionId("s").setMarker(Marker.RESPONSE).setSequence(0)
                .setBlockCount(1).setChannel("cli_chat").setText("").setTimestamp(now).build());
        Meters.councilMessage(CouncilMessage.newBuilder().setMsgId("m").setCouncilId("default").setTimestamp(now)
                .setSender("lite").setRole("observer").setType(CouncilMessageType.PROPOSAL).build());
        Meters.reanchored();
        Meters.resultHeld();
        Meters.memoryShelfBytes(new int[] {1}, bytes -> bytes[0]);
    }
}
