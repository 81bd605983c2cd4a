package io.cognitionstreams.app;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients each capability's Kafka Streams runs with: Kafka's own, except that the main consumer moves a corrupted
 * task's partitions back to their committed offsets when a rebalance comes before the task could (KAFKA-12486's
 * rebalance loses records under exactly-once in Kafka Streams 4.3).
 *
 * <p>A task is corrupted when, for one, its commit times out (a broker away longer than max.block.ms). It is closed
 * dirty, which drops the records it had fetched but not yet processed, and revived with its input partitions paused
 * and marked to be reset to their committed offsets once it is initialized again. Under exactly-once Kafka Streams
 * then enforces a rebalance, and a broker's return or another instance can bring one too. A rebalance before the
 * revived task is initialized closes it and creates a new task without that mark; the consumer keeps the partitions
 * and its position past the dropped records, so the next commit passes them and they are never processed
 * (docs/reliability.md, "Broker restart"; {@code CorruptedTaskIT}). So this consumer remembers the partitions Kafka
 * Streams pauses for that reset until it resets them, and when a rebalance leaves it any of them first, seeks them
 * to their committed offsets itself, before the new tasks are initialized. Nothing else is paused this way: a
 * partition paused because its task's buffer is full is never moved (its buffered records would be read twice).
 *
 * <p>Under the streams group protocol Kafka Streams makes its own main consumer and this does not apply.
 */
public final class StreamsClients implements KafkaClientSupplier {

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
        return resettingCorruptedPartitions(kafka.getConsumer(config));
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return kafka.getRestoreConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return kafka.getGlobalConsumer(config);
    }

    /**
     * {@code consumer}, remembering the partitions Kafka Streams pauses to reset them (a corrupted task's) until they
     * are sought, revoked or lost, and seeking those a rebalance leaves it to their committed offsets.
     */
    @SuppressWarnings("unchecked")
    static Consumer<byte[], byte[]> resettingCorruptedPartitions(Consumer<byte[], byte[]> consumer) {
        Set<TopicPartition> toReset = new HashSet<>();
        return (Consumer<byte[], byte[]>) Proxy.newProxyInstance(Consumer.class.getClassLoader(),
                new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "pause" -> {
                            if (pausedForOffsetReset()) {
                                toReset.addAll((Collection<TopicPartition>) args[0]);
                            }
                        }
                        case "seek" -> toReset.remove((TopicPartition) args[0]);
                        case "seekToBeginning", "seekToEnd" -> toReset.removeAll((Collection<TopicPartition>) args[0]);
                        case "subscribe" -> {
                            int last = args.length - 1;
                            if (args[last] instanceof ConsumerRebalanceListener streams) {
                                args[last] = new ResetOnRebalance(consumer, streams, toReset);
                            }
                        }
                        default -> { }
                    }
                    try {
                        return method.invoke(consumer, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /**
     * Whether Kafka Streams pauses a corrupted task's partitions, to reset them at its initialization. Recognised by
     * the caller's name: should a Kafka release rename it, {@code CorruptedTaskIT} loses inputs and fails.
     */
    private static boolean pausedForOffsetReset() {
        return StackWalker.getInstance().walk(frames -> frames.limit(8).anyMatch(frame ->
                frame.getMethodName().equals("addPartitionsForOffsetReset")
                        && frame.getClassName().startsWith("org.apache.kafka.streams.processor.internals.")));
    }

    /** Kafka Streams' rebalance listener, after which the partitions still to be reset are sought to committed. */
    private record ResetOnRebalance(Consumer<byte[], byte[]> consumer, ConsumerRebalanceListener streams,
            Set<TopicPartition> toReset) implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // Whoever gets them next starts from their committed offsets.
            toReset.removeAll(partitions);
            streams.onPartitionsRevoked(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            toReset.removeAll(partitions);
            streams.onPartitionsLost(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // The new tasks were created in this rebalance (Kafka Streams' onAssignment, just before) and are
            // initialized only after it: moving their partitions now is as if the revived tasks had done it.
            toReset.retainAll(consumer.assignment());
            if (!toReset.isEmpty()) {
                Map<TopicPartition, String> reset = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
                try {
                    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(toReset);
                    for (TopicPartition partition : toReset) {
                        reset.put(partition, seek(partition, committed.get(partition)));
                    }
                } catch (WakeupException | InterruptException e) {
                    // A wakeup or an interrupt passes through as the consumer throws it, for Kafka Streams to handle.
                    throw e;
                } catch (KafkaException e) {
                    // Out of poll, this replaces the stream thread: its new consumer starts from the committed offsets.
                    throw new KafkaException("could not read the committed offsets of " + toReset
                            + " to read again what a corrupted task had fetched", e);
                }
                LOG.warn("a rebalance came before the corrupted tasks were reset: moved their partitions back to their "
                        + "commits {} (KAFKA-12486's rebalance would skip what they had fetched)", reset);
                toReset.clear();
            }
            streams.onPartitionsAssigned(partitions);
        }

        /**
         * Seeks to the committed offset or, with none, to the beginning: what Kafka Streams does for a source
         * without its own reset policy (the app's topologies name none) under its default "earliest".
         */
        private String seek(TopicPartition partition, OffsetAndMetadata committed) {
            if (committed == null) {
                consumer.seekToBeginning(Set.of(partition));
                return "the beginning";
            }
            consumer.seek(partition, committed);
            return String.valueOf(committed.offset());
        }
    }
}
