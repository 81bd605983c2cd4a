package io.cognitionstreams.app;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients each capability's Kafka Streams runs with: Kafka's own, except that the main consumer ignores the
 * rebalance Kafka Streams enforces after closing a corrupted active task (KAFKA-12486), which loses records under
 * exactly-once in Kafka Streams 4.3.
 *
 * <p>A task is corrupted when, for one, its commit times out (a broker away longer than max.block.ms). It is closed
 * dirty, which drops the records it had fetched but not yet processed, and revived with its input partitions marked
 * to be reset to their committed offsets once it is initialized again. The enforced rebalance comes first: the new
 * assignment closes the revived task, still waiting for initialization, and creates a new one without that mark.
 * The consumer keeps the partitions and its position past the dropped records, so the next commit passes them and
 * they are never processed (docs/reliability.md, "Broker restart"; {@code CorruptedTaskIT}). Without the rebalance
 * the revived task is initialized, resets its partitions and reads those records again. The rebalance only lets
 * another instance with a standby take such a task over while it restores; here it restores in place.
 *
 * <p>A rebalance from elsewhere (another instance joining) in the same window would still drop them. Under the
 * streams group protocol Kafka Streams makes its own main consumer and this does not apply.
 */
public final class StreamsClients implements KafkaClientSupplier {

    /** The reason Kafka Streams (4.3) gives for the rebalance it enforces after closing corrupted active tasks. */
    static final String ACTIVE_TASKS_CORRUPTED = "Active tasks corrupted";

    private static final Logger LOG = LoggerFactory.getLogger(StreamsClients.class);

    private final KafkaClientSupplier kafka = new DefaultKafkaClientSupplier();

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return kafka.getAdmin(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return kafka.getProducer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return withoutRebalanceOnCorruption(kafka.getConsumer(config));
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return kafka.getRestoreConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return kafka.getGlobalConsumer(config);
    }

    /** {@code consumer}, except for {@code enforceRebalance(ACTIVE_TASKS_CORRUPTED)}, which does nothing. */
    @SuppressWarnings("unchecked")
    static Consumer<byte[], byte[]> withoutRebalanceOnCorruption(Consumer<byte[], byte[]> consumer) {
        return (Consumer<byte[], byte[]>) Proxy.newProxyInstance(Consumer.class.getClassLoader(),
                new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                    if (method.getName().equals("enforceRebalance") && args != null && args.length == 1
                            && ACTIVE_TASKS_CORRUPTED.equals(args[0])) {
                        LOG.warn("not rebalancing after closing corrupted active tasks: the revived tasks read their "
                                + "input again from the last commit (KAFKA-12486 would skip what they had fetched)");
                        return null;
                    }
                    try {
                        return method.invoke(consumer, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
