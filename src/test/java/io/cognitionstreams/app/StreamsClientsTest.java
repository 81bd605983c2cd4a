package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.internals.CorruptedTaskPause;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StreamsClientsTest {

    private static final TopicPartition IN_0 = new TopicPartition("in", 0);
    private static final TopicPartition IN_1 = new TopicPartition("in", 1);

    private final MockConsumer<byte[], byte[]> kafka = new MockConsumer<>(AutoOffsetResetStrategy.NONE.name());
    private final Consumer<byte[], byte[]> consumer = StreamsClients.resettingCorruptedPartitions(kafka);
    private final List<String> streamsCalls = new ArrayList<>();
    private boolean positioned;

    @BeforeEach
    void assigned() {
        consumer.subscribe(List.of("in"), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                streamsCalls.add("revoked " + partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                boolean placed = positioned && kafka.assignment().contains(IN_0);
                streamsCalls.add("assigned " + partitions + (placed ? " at " + kafka.position(IN_0) : ""));
            }
        });
        kafka.rebalance(List.of(IN_0, IN_1));
        kafka.updateBeginningOffsets(Map.of(IN_0, 0L, IN_1, 0L));
        kafka.commitSync(Map.of(IN_0, new OffsetAndMetadata(100), IN_1, new OffsetAndMetadata(100)));
        // Fetched past what was processed and committed.
        kafka.seek(IN_0, 180);
        kafka.seek(IN_1, 180);
        positioned = true;
    }

    @Test
    void aRebalanceBeforeTheResetMovesACorruptedTasksPartitionsBackToTheirCommittedOffsets() {
        CorruptedTaskPause.addPartitionsForOffsetReset(consumer, Set.of(IN_0));

        kafka.rebalance(List.of(IN_0, IN_1));

        assertThat(kafka.position(IN_0)).as("read again from the commit").isEqualTo(100);
        assertThat(kafka.position(IN_1)).as("not corrupted").isEqualTo(180);
        assertThat(streamsCalls).as("Kafka Streams' own listener still runs, after the seek")
                .containsExactly("assigned [in-0, in-1]", "assigned [] at 100");
    }

    @Test
    void aPartitionPausedForAnyOtherReasonIsNeverMoved() {
        // Kafka Streams pauses a partition whose task's buffer is full: its buffered records would be read twice.
        consumer.pause(Set.of(IN_0));

        kafka.rebalance(List.of(IN_0, IN_1));

        assertThat(kafka.position(IN_0)).isEqualTo(180);
    }

    @Test
    void aPartitionTheRevivedTaskResetItselfIsNotMovedAgain() {
        CorruptedTaskPause.addPartitionsForOffsetReset(consumer, Set.of(IN_0));
        consumer.seek(IN_0, new OffsetAndMetadata(100));
        // Processed on after the reset.
        kafka.seek(IN_0, 150);

        kafka.rebalance(List.of(IN_0, IN_1));

        assertThat(kafka.position(IN_0)).isEqualTo(150);
    }

    @Test
    void aPartitionRevokedBeforeItsResetIsForgotten() {
        CorruptedTaskPause.addPartitionsForOffsetReset(consumer, Set.of(IN_0));
        kafka.rebalance(List.of(IN_1));
        kafka.rebalance(List.of(IN_0, IN_1));
        kafka.seek(IN_0, 170);

        kafka.rebalance(List.of(IN_0, IN_1));

        assertThat(kafka.position(IN_0)).isEqualTo(170);
    }

    @Test
    void withoutACommittedOffsetThePartitionIsReadFromTheBeginning() {
        TopicPartition in2 = new TopicPartition("in", 2);
        kafka.rebalance(List.of(IN_0, IN_1, in2));
        kafka.updateBeginningOffsets(Map.of(in2, 7L));
        kafka.seek(in2, 50);
        CorruptedTaskPause.addPartitionsForOffsetReset(consumer, Set.of(in2));

        kafka.rebalance(List.of(IN_0, IN_1, in2));

        assertThat(kafka.position(in2)).isEqualTo(7);
    }
}
