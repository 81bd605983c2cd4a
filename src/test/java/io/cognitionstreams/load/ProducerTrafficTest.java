package io.cognitionstreams.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.load.ProducerTraffic.Sent;
import io.cognitionstreams.load.ProducerTraffic.Snapshot;
import io.cognitionstreams.load.ProducerTraffic.Traffic;

class ProducerTrafficTest {

    @Test
    void anIntervalCountsWhatOpenProducersSentSinceAndAllOfOneThatStartedSince() {
        Snapshot before = new Snapshot(Map.of(
                "thread-1", Map.of("cognition.packets", new Sent(100, 10_000)),
                "closed", Map.of("cognition.packets", new Sent(50, 5_000))));
        Snapshot after = new Snapshot(Map.of(
                "thread-1", Map.of("cognition.packets", new Sent(160, 16_000), "cognition.memory", new Sent(30, 900)),
                "started", Map.of("cognition.packets", new Sent(40, 4_000))));

        Traffic traffic = after.since(before);

        assertThat(traffic.byTopic()).containsOnly(
                Map.entry("cognition.packets", new Sent(100, 10_000)),
                Map.entry("cognition.memory", new Sent(30, 900)));
        assertThat(traffic.total()).isEqualTo(new Sent(130, 10_900));
        assertThat(traffic.per(10).byTopic()).containsEntry("cognition.packets", new Sent(10, 1_000));
        assertThat(traffic.per(0)).isEqualTo(Traffic.NONE);
    }

    @Test
    void topicsCompareByTheirChangeLargestFirstLeavingOutTheUnchanged() {
        Traffic off = new Traffic(Map.of("cognition.packets", new Sent(1, 900), "channel.web", new Sent(2, 400)));
        Traffic on = new Traffic(Map.of("cognition.packets", new Sent(1, 1_300), "channel.web", new Sent(1.5, 300),
                "cognition.memory", new Sent(3, 1_200)));

        assertThat(on.recordsAgainst(off)).containsExactly(Map.entry("cognition.memory", 3.0),
                Map.entry("channel.web", -0.5));
    }
}
