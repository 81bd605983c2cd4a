package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends records without waiting for each acknowledgement, and remembers which failed and why. Idempotence with
 * acks=all keeps each partition's records in the order sent, up to 5 requests in flight, retries included; so the
 * caller stops at the first failure, because what it sent after would otherwise overtake the failed record.
 */
final class AsyncSender implements AutoCloseable {

    /**
     * The broker's default message.max.bytes (1 MiB and 12 bytes), rounded down: the record limit of a topic that
     * does not exist yet, which auto-creation will give it.
     */
    static final int DEFAULT_RECORD_LIMIT = 1024 * 1024;

    /**
     * A record batch's header (61 bytes) and one record's framing (at most 32): what a record costs on top of its
     * key and value when it travels alone.
     */
    static final int RECORD_OVERHEAD = 93;

    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    /** Why each failed record failed, by the caller's position for it (a line number, say). */
    private final ConcurrentSkipListMap<Long, String> failures = new ConcurrentSkipListMap<>();

    /** @param recordLimit the topic's max.message.bytes: the largest record batch its broker accepts */
    AsyncSender(Map<String, Object> clientConfig, int recordLimit) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Math.max(recordLimit, DEFAULT_RECORD_LIMIT));
        // Fuller batches than the defaults (5 ms, 16 KiB): a file is read faster than a broker takes requests.
        // Never over the topic's limit, because the producer splits a refused batch into batches of batch.size
        // and retries those for ever if they are still too large.
        config.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, Math.min(64 * 1024, recordLimit));
        producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A topic's max.message.bytes on the cluster, or the default for a topic that is not there yet. */
    static int recordLimit(Optional<Config> topicConfig) {
        return topicConfig.map(config -> Integer.parseInt(config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG).value()))
                .orElse(DEFAULT_RECORD_LIMIT);
    }

    /** The size of a record's batch when it travels alone; over the topic's limit, the broker refuses it. */
    static long batchBytes(ProducerRecord<byte[], byte[]> record) {
        return RECORD_OVERHEAD + (record.key() == null ? 0 : record.key().length)
                + (record.value() == null ? 0 : record.value().length);
    }

    void send(long position, ProducerRecord<byte[], byte[]> record) {
        sent.incrementAndGet();
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    acknowledged.incrementAndGet();
                } else {
                    failures.put(position, reason(error));
                }
            });
        } catch (KafkaException e) {
            failures.put(position, reason(e));
        }
    }

    boolean failed() {
        return !failures.isEmpty();
    }

    /** Waits until every record sent so far is acknowledged or has failed. */
    void flush() {
        producer.flush();
    }

    long sent() {
        return sent.get();
    }

    long acknowledged() {
        return acknowledged.get();
    }

    int failureCount() {
        return failures.size();
    }

    /**
     * One line per failure, in position order; a run of consecutive positions that failed for the same reason is
     * one line, so a broker that went away mid-file gives a few lines, not one per record in flight.
     */
    void printFailures(PrintWriter err, LongFunction<String> name) {
        Iterator<Map.Entry<Long, String>> entries = failures.entrySet().iterator();
        Map.Entry<Long, String> first = entries.hasNext() ? entries.next() : null;
        while (first != null) {
            Map.Entry<Long, String> last = first;
            Map.Entry<Long, String> next = entries.hasNext() ? entries.next() : null;
            while (next != null && next.getKey() == last.getKey() + 1 && next.getValue().equals(first.getValue())) {
                last = next;
                next = entries.hasNext() ? entries.next() : null;
            }
            String which = last == first ? name.apply(first.getKey())
                    : name.apply(first.getKey()) + " to " + name.apply(last.getKey());
            err.printf("%s: not sent: %s%n", which, first.getValue());
            first = next;
        }
    }

    private static String reason(Exception error) {
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }

    @Override
    public void close() {
        producer.close();
    }
}
