package io.cognitionstreams.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.load.KafkaTraffic.Snapshot;
import io.cognitionstreams.load.KafkaTraffic.Tally;
import io.cognitionstreams.load.KafkaTraffic.Traffic;

class KafkaTrafficTest {

    @Test
    void anIntervalCountsWhatOpenProducersSentSinceAndAllOfOneThatStartedSince() {
        Snapshot before = new Snapshot(
                Map.of("thread-1", tally("cognition.packets", 100), "closed", tally("cognition.packets", 50)),
                Map.of("thread-1", tally("cognition.packets", 10_000), "closed", tally("cognition.packets", 5_000)),
                new Tally(Map.of("Produce", 40.0, "Fetch", 70.0)));
        Snapshot after = new Snapshot(
                Map.of("thread-1", new Tally(Map.of("cognition.packets", 160.0, "cognition.memory", 30.0)),
                        "started", tally("cognition.packets", 40)),
                Map.of("thread-1", new Tally(Map.of("cognition.packets", 16_000.0, "cognition.memory", 900.0)),
                        "started", tally("cognition.packets", 4_000)),
                new Tally(Map.of("Produce", 60.0, "Fetch", 100.0, "EndTxn", 5.0)));

        Traffic traffic = after.since(before);

        assertThat(traffic.records().counts()).containsOnly(Map.entry("cognition.packets", 100.0),
                Map.entry("cognition.memory", 30.0));
        assertThat(traffic.bytes().total()).isEqualTo(10_900.0);
        assertThat(traffic.requests().counts()).containsOnly(Map.entry("Produce", 20.0), Map.entry("Fetch", 30.0),
                Map.entry("EndTxn", 5.0));
        assertThat(traffic.per(10).records().counts()).containsEntry("cognition.packets", 10.0);
        assertThat(traffic.per(0)).isEqualTo(Traffic.NONE);
    }

    @Test
    void countsCompareByTheirChangeLargestFirstLeavingOutTheUnchanged() {
        Tally off = new Tally(Map.of("cognition.packets", 1.0, "channel.web", 2.0));
        Tally on = new Tally(Map.of("cognition.packets", 1.0, "channel.web", 1.5, "cognition.memory", 3.0));

        assertThat(on.against(off)).containsExactly(Map.entry("cognition.memory", 3.0),
                Map.entry("channel.web", -0.5));
    }

    private static Tally tally(String name, double count) {
        return new Tally(Map.of(name, count));
    }
}
