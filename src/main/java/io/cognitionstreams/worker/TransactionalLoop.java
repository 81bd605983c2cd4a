package io.cognitionstreams.worker;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.topics.OutputGuard;

/**
 * A transactional consume-process-produce loop for work that must not run on a stream thread because one record
 * can take seconds to minutes (a model call, a tool). Each poll's outputs and its consumed offsets commit in one
 * transaction (exactly-once, fenced by the consumer group's generation as Kafka Streams is: KIP-447), so every
 * record gets its outputs once even across crashes. A {@link Handler} may also commit part of its outputs early,
 * before work with side effects starts ({@link Batch#commitNow}), and may leave the tail of a partition for the next
 * poll when the batch runs long.
 */
public final class TransactionalLoop implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionalLoop.class);

    /** The transaction a handler writes a batch's outputs into. */
    public interface Batch {
        /**
         * Sends within the current transaction. A record the broker refuses aborts it; remembered
         * ({@link OutputGuard}), the same record is refused before it is sent when its input is read again, so the
         * handler can dead-letter the input instead of reading it forever.
         */
        void send(ProducerRecord<byte[], byte[]> record);

        /**
         * Commits what was sent so far, without the consumed offsets, and opens the next transaction: for marks
         * that must be durable before a side effect starts (the executor's ledger).
         */
        void commitNow();
    }

    /** What the loop runs. Called on the loop's thread only. */
    public interface Handler {
        /**
         * Processes a poll's records.
         *
         * @return per partition, the offset of the first record left for a later poll; partitions not in the map
         *         were processed whole
         */
        Map<TopicPartition, Long> process(ConsumerRecords<byte[], byte[]> records, Batch batch);

        /** Partitions now this loop's: called before their first records are given to {@link #process}. */
        default void assigned(Collection<TopicPartition> partitions) {
        }

        /** Partitions no longer this loop's. */
        default void revoked(Collection<TopicPartition> partitions) {
        }

        /** The last {@link #process} call's transaction committed. */
        default void committed() {
        }

        /** The last {@link #process} call's transaction was aborted: its records will be read again. */
        default void aborted() {
        }
    }

    /** What a loop's fetches and its producer's unsent records may hold, each. */
    static final int MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

    private final String name;
    private final String topic;
    private final Handler handler;
    private final WorkerClients clients;
    private final String groupId;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong processed = new AtomicLong();
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private KafkaProducer<byte[], byte[]> producer;

    /**
     * @param clientConfig    bootstrap servers and any security settings, shared by consumer and producer
     * @param instanceId      this process's name, the same across its restarts (the app's {@code InstanceId}):
     *                        with the group id, its static member id and its transactional id
     * @param maxPollRecords  records per transaction; small for slow work, so a poll's work stays well inside
     *                        {@code maxPollInterval}
     * @param maxPollInterval how long one poll's work may take before the group gives its partitions away
     * @param sessionTimeout  how long a worker that dies for good keeps its partitions
     * @param gather          how long a poll waits for more records when fewer than {@code maxPollRecords} are
     *                        there: each transaction costs the broker a few requests and a marker in every
     *                        partition it wrote, so records that come steadily are better taken a batch at a time
     *                        (zero: a poll returns as soon as any record is there)
     */
    public TransactionalLoop(String name, Map<String, Object> clientConfig, String groupId, String instanceId,
                             String topic, int maxPollRecords, Duration maxPollInterval, Duration sessionTimeout,
                             Duration gather, Handler handler) {
        this.name = name;
        this.topic = topic;
        this.handler = handler;
        this.groupId = groupId;
        this.clients = new WorkerClients(clientConfig, groupId, instanceId, maxPollRecords, maxPollInterval,
                sessionTimeout, gather);
    }

    /**
     * Until closed. A failure the loop cannot handle in place (fenced, a broker away longer than max.block.ms,
     * after which the producer refuses to abort) starts it over with new clients from the last commit, as Kafka
     * Streams replaces a failed thread: nothing uncommitted was visible, so nothing is lost or doubled.
     */
    @Override
    public void run() {
        while (running.get()) {
            consumer = clients.consumer();
            producer = clients.producer();
            try {
                producer.initTransactions();
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        handler.revoked(partitions);
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        handler.assigned(partitions);
                    }
                });
                while (running.get()) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                    if (!records.isEmpty()) {
                        processInTransaction(records);
                    }
                }
            } catch (WakeupException e) {
                // close() asked to stop
            } catch (RuntimeException e) {
                if (running.get()) {
                    LOG.error("{} failed, starting again from the last commit: {}", name, e.toString());
                    sleepQuietly(Duration.ofSeconds(1));
                }
            } finally {
                consumer.close(WorkerClients.closing(running.get()));
                producer.close(Duration.ofSeconds(5));
            }
        }
    }

    private void processInTransaction(ConsumerRecords<byte[], byte[]> records) {
        producer.beginTransaction();
        try {
            Map<TopicPartition, Long> leftAt = handler.process(records, new Batch() {
                @Override
                public void send(ProducerRecord<byte[], byte[]> record) {
                    WorkerClients.send(producer, record);
                }

                @Override
                public void commitNow() {
                    producer.commitTransaction();
                    producer.beginTransaction();
                }
            });
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition partition : records.partitions()) {
                List<ConsumerRecord<byte[], byte[]>> polled = records.records(partition);
                long next = leftAt.getOrDefault(partition, polled.get(polled.size() - 1).offset() + 1);
                offsets.put(partition, new OffsetAndMetadata(next));
            }
            producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            producer.commitTransaction();
            handler.committed();
            leftAt.forEach(consumer::seek);
            processed.addAndGet(records.count());
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
            handler.aborted();
            throw e;
        } catch (KafkaException e) {
            LOG.warn("{} transaction aborted, re-reading from the last commit: {}", name, e.getMessage());
            handler.aborted();
            producer.abortTransaction();
            rewind();
        } catch (RuntimeException e) {
            // A bug in the handler: the loop starts over with new clients, which aborts the transaction.
            handler.aborted();
            throw e;
        }
    }

    private void rewind() {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment());
        for (TopicPartition partition : consumer.assignment()) {
            OffsetAndMetadata offset = committed.get(partition);
            if (offset == null) {
                consumer.seekToBeginning(List.of(partition));
            } else {
                consumer.seek(partition, offset.offset());
            }
        }
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Records processed and committed since the start. */
    public long processed() {
        return processed.get();
    }

    public String groupId() {
        return groupId;
    }

    @Override
    public void close() {
        running.set(false);
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
    }
}
