package io.cognitionstreams.testing;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;

import io.cognitionstreams.app.StreamsSettings;
import io.cognitionstreams.assembly.AssemblyTopology;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topics;

/** TopologyTestDriver set up like the app: exactly-once and the app's own dead-letter handlers. */
public final class Drivers {

    private Drivers() {
    }

    public static Topics topics() {
        return new Topics(new SingleObjectAvroSerdeFactory());
    }

    /** With these tenants' own topics, as `run --secure` has them. */
    public static Topics topics(List<String> tenants) {
        return new Topics(new SingleObjectAvroSerdeFactory(), OutputLimits.defaults(), tenants);
    }

    public static TopologyTestDriver driver(Topology topology, Path stateDir) {
        return new TopologyTestDriver(topology, properties(stateDir));
    }

    /** With the driver's wall clock starting at {@code wallClock}, for topologies with wall-clock punctuators. */
    public static TopologyTestDriver driver(Topology topology, Path stateDir, Instant wallClock) {
        return new TopologyTestDriver(topology, properties(stateDir), wallClock);
    }

    private static Properties properties(Path stateDir) {
        Properties props = StreamsSettings.errorHandling();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "test-" + System.nanoTime());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // The driver has one partition of every topic, as the runtime would tell the assembly of cognition.memory.
        props.put(AssemblyTopology.MEMORY_PARTITIONS_CONFIG, 1);
        return props;
    }
}
