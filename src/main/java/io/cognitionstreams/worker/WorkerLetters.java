package io.cognitionstreams.worker;

import java.time.Instant;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/** The dead letters the worker loops write for the input records they cannot process. */
public final class WorkerLetters {

    private WorkerLetters() {
    }

    /**
     * A dead letter for an input record: what it was, where it was, who refused it and why, keyed like every
     * letter by where the record was.
     */
    public static ProducerRecord<byte[], byte[]> deadLetter(Topics topics, ConsumerRecord<byte[], byte[]> record,
                                                            ErrorKind kind, Throwable error, String component,
                                                            String groupId) {
        DeadLetters.Origin origin = new DeadLetters.Origin(record.topic(), record.partition(), record.offset(),
                component, groupId);
        DeadLetter letter = DeadLetters.of(kind, error, origin, record.key(), record.value(), Instant.now());
        Topic<String, DeadLetter> dlq = topics.deadLetters;
        String key = DeadLetters.key(record.topic(), record.partition(), record.offset());
        return new ProducerRecord<>(dlq.name(), dlq.keySerde().serializer().serialize(dlq.name(), key),
                dlq.valueSerde().serializer().serialize(dlq.name(), letter));
    }
}
