package io.cognitionstreams.app;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.testing.SharedBroker;

@ExtendWith(SharedBroker.class)
class PipelineIT {

    @Test
    void requestsFlowToTheChannelsAndBadRecordsToTheDeadLetterTopic(EmbeddedKafkaBroker broker,
                                                                     @TempDir Path stateDir) throws Exception {
        PipelineScenario.run(broker.bootstrapServers(), stateDir);
    }
}
