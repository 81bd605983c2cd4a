package io.cognitionstreams.cli;

import java.util.Optional;
import java.util.concurrent.Callable;

import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.council.CouncilView;
import io.cognitionstreams.schema.CouncilState;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "council", mixinStandardHelpOptions = true,
        description = {"Prints a council's state: its roles with last heartbeat and status, its open proposals with "
                + "their tallies, and votes waiting for their proposal.",
                "Reads the council's latest record on " + Topics.COUNCIL_STATE + " (read_committed), which the "
                        + "council writes once a tick (--council-tick) when the council changed: it needs only the "
                        + "cluster, and shows what the council has committed."})
final class CouncilCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--council-id", defaultValue = "default",
            description = "Council to show (default: ${DEFAULT-VALUE}).")
    String councilId;

    @Override
    public Integer call() {
        Topic<String, CouncilState> topic = cluster.topics().councilState;
        Optional<CouncilState> state = TopicReader.latestValue(cluster.clientConfig(), topic.name(), councilId)
                .map(value -> topic.valueSerde().deserializer().deserialize(topic.name(), value));
        if (state.isEmpty()) {
            spec.commandLine().getErr().printf("no state for council %s on %s yet: the council writes it once a "
                    + "tick after its first message%n", councilId, topic.name());
            spec.commandLine().getErr().flush();
        }
        spec.commandLine().getOut().print(CouncilView.render(councilId, state));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
