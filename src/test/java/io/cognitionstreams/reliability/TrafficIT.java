package io.cognitionstreams.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topics;

/**
 * The long runs' load: a send the broker refuses stops a fixed set of requests and fails it, while an agent goes on
 * without counting the refused one, so a run never waits for the answer to a request that was never written.
 */
@ExtendWith(SharedBroker.class)
class TrafficIT {

    /** Over the topic's 1 MB limit: refused for good, as a batch is after a broker's kill lost its sequence. */
    private static final String TOO_LARGE = "x".repeat(2 * 1024 * 1024);

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
    private final String run = "traffic-" + UUID.randomUUID().toString().substring(0, 8);
    private String bootstrap;

    @BeforeEach
    void topics(EmbeddedKafkaBroker broker) {
        bootstrap = broker.bootstrapServers();
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            TopicProvisioner.ensure(admin, topics, 3, (short) 1);
        }
    }

    private CognitionRequest request(long n) {
        CognitionRequest request = Workload.NO_MEMORY.request(run, n, Instant.now());
        return n == 2 ? CognitionRequest.newBuilder(request).setUserPrompt(TOO_LARGE).build() : request;
    }

    @Test
    void anAgentGoesOnAfterARefusedSendAndDoesNotCountIt() throws Exception {
        Traffic agent = Traffic.agent(bootstrap, topics.requests, this::request, run, 50);
        while (agent.sent() < 8) {
            Thread.sleep(20);
        }
        agent.stop();
        agent.await();

        long[] delivered = agent.delivered();
        assertThat(delivered).doesNotContain(2L).contains(0L, 1L, 3L, 7L)
                .containsExactly(LongStream.range(0, agent.sent()).filter(n -> n != 2).toArray());
        List<CognitionRequest> written = Kafka.readAll(bootstrap, topics.requests,
                request -> request.getRequestId().startsWith(run));
        assertThat(written).as("what it counts is what the topic holds").hasSize(delivered.length);
    }

    @Test
    void aFixedSetStopsAtTheFirstRefusedSendAndSaysSo() {
        Traffic fixed = Traffic.start(bootstrap, topics.requests, this::request, Traffic.first(6), 50, run);

        assertThatThrownBy(fixed::await).hasMessage("sending requests failed")
                .hasRootCauseInstanceOf(OutputGuard.RefusedOutputException.class);
    }
}
