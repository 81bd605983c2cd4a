package org.apache.kafka.streams.processor.internals;

import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Stands in for the one place Kafka Streams pauses a corrupted task's partitions to reset them
 * ({@code StreamTask.addPartitionsForOffsetReset}), which the app's main consumer recognises by its name and package.
 */
public final class CorruptedTaskPause {

    private CorruptedTaskPause() {
    }

    public static void addPartitionsForOffsetReset(Consumer<byte[], byte[]> consumer, Set<TopicPartition> partitions) {
        consumer.pause(partitions);
    }
}
