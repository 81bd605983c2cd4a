package io.cognitionstreams.executor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.schema.LedgerState;
import io.cognitionstreams.schema.ToolLedgerEntry;
import io.cognitionstreams.topics.LedgerKey;
import io.cognitionstreams.topics.Topics;

/**
 * Reads one partition of tool.ledger back, as a stream thread restores a store from its changelog. Committed
 * entries only; and first it waits for any transaction still open on the partition (one left by a process that
 * died, or one whose commit markers are still on their way), because a STARTED entry inside it, once committed,
 * is exactly what must not be missed.
 */
final class LedgerRestore {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerRestore.class);

    private final Map<String, Object> clientConfig;
    private final Topics topics;
    private final Duration openTransactionWait;

    LedgerRestore(Map<String, Object> clientConfig, Topics topics, Duration openTransactionWait) {
        this.clientConfig = clientConfig;
        this.topics = topics;
        this.openTransactionWait = openTransactionWait;
    }

    /**
     * Hands every committed entry of the partition, oldest first, to {@code entries} with its record's key (null for
     * a tombstone).
     */
    void read(int partition, BiConsumer<String, ToolLedgerEntry> entries) {
        TopicPartition ledger = new TopicPartition(topics.toolLedger.name(), partition);
        Properties props = new Properties();
        props.putAll(clientConfig);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(ledger));
            consumer.seekToBeginning(List.of(ledger));
            long end = committedEnd(consumer, ledger);
            int count = 0;
            while (consumer.position(ledger) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.key() == null) {
                        LOG.warn("skipped a ledger record without a key at {}@{}", ledger, record.offset());
                        continue;
                    }
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    entries.accept(key, entry(key, record));
                    count++;
                }
            }
            LOG.debug("restored {} ledger entries of partition {}", count, partition);
        }
    }

    /**
     * The entry, or for one that cannot be read a STARTED entry of no decision: the call is then refused rather
     * than run, since what the unreadable entry said (perhaps that it ran) is lost. Only the executor writes this
     * topic; anything else there is an attack or a bug, and costs at most that one call (in every session, for a key
     * of a call id alone as versions before {@link LedgerKey} wrote).
     */
    private ToolLedgerEntry entry(String key, ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            return topics.toolLedger.valueSerde().deserializer().deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            LOG.warn("ledger entry {} at {}-{}@{} cannot be read ({}); its call will be refused, not run",
                    key, record.topic(), record.partition(), record.offset(), e.getMessage());
            LedgerKey call = LedgerKey.parse(key).orElse(new LedgerKey(ANY_SESSION, key));
            return ToolLedgerEntry.newBuilder()
                    .setCallId(call.callId())
                    .setSessionId(call.sessionId())
                    .setTool("")
                    .setState(LedgerState.STARTED)
                    .setExecutor("")
                    .setDecisionOffset(UNREADABLE)
                    .build();
        }
    }

    /** The session of an unreadable entry whose key names none: no session has a blank id, so it stands for all. */
    static final String ANY_SESSION = "";

    /** The decision offset of an entry that could not be read. */
    static final long UNREADABLE = -1;

    /** The partition's end for read_committed readers, once no transaction is open on it (or the wait is over). */
    private long committedEnd(KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition) {
        long highWatermark;
        try (Admin admin = Admin.create(clientConfig)) {
            highWatermark = admin.listOffsets(Map.of(partition, OffsetSpec.latest()),
                    new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).partitionResult(partition).get()
                    .offset();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the end of " + partition + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        long deadline = System.nanoTime() + openTransactionWait.toNanos();
        while (true) {
            long stable = consumer.endOffsets(List.of(partition)).get(partition);
            if (stable >= highWatermark) {
                return stable;
            }
            if (System.nanoTime() > deadline) {
                LOG.warn("a transaction is still open on {} after {} s; restoring what is committed", partition,
                        openTransactionWait.toSeconds());
                return stable;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }
}
