package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StreamsClientsTest {

    @Test
    void theMainConsumerIgnoresOnlyTheRebalanceAfterCorruptedTasks() {
        List<String> calls = new ArrayList<>();
        @SuppressWarnings("unchecked")
        Consumer<byte[], byte[]> kafka = (Consumer<byte[], byte[]>) Proxy.newProxyInstance(
                Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                    calls.add(method.getName() + (args == null ? "" : List.of(args)));
                    return null;
                });
        Consumer<byte[], byte[]> consumer = StreamsClients.withoutRebalanceOnCorruption(kafka);

        consumer.enforceRebalance(StreamsClients.ACTIVE_TASKS_CORRUPTED);
        consumer.enforceRebalance("Shutdown requested");
        consumer.enforceRebalance();
        consumer.pause(Set.of(new TopicPartition("in", 0)));

        assertThat(calls).containsExactly("enforceRebalance[Shutdown requested]", "enforceRebalance",
                "pause[[in-0]]");
    }
}
