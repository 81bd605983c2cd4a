package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/** Instances started together (the same command on every machine) must not fail on each other's topics. */
@ExtendWith(IsolatedBroker.class)
class TopicProvisionerIT {

    @Test
    void twoInstancesCreatingTheTopicsAtOnceBothSucceed(EmbeddedKafkaBroker broker) throws Exception {
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<String>>> instances = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                instances.add(pool.submit(() -> {
                    try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                            broker.bootstrapServers()))) {
                        together.await();
                        return TopicProvisioner.ensure(admin, topics, 3, (short) 1);
                    }
                }));
            }
            List<String> created = new ArrayList<>();
            for (Future<List<String>> instance : instances) {
                created.addAll(instance.get(2, TimeUnit.MINUTES));
            }

            assertThat(created).as("each topic created by one of them")
                    .containsExactlyInAnyOrderElementsOf(topics.all().stream().map(Topic::name).toList());
        } finally {
            pool.shutdownNow();
        }
    }
}
