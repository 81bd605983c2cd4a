package io.cognitionstreams.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;

/**
 * Looks for hanging transactions on the pipeline's topics and on the consumer offsets topic, once a minute: each new
 * one is logged at ERROR with the command that aborts it, and the JMX gauge
 * {@code cognition.health:type=transactions,application-id=<id>} / {@code hanging-transactions} counts those open
 * now. It never aborts
 * anything itself: that discards the transaction's records, a decision for an operator.
 */
public final class TransactionWatch implements AutoCloseable {

    public static final String OFFSETS_TOPIC = "__consumer_offsets";
    private static final Logger LOG = LoggerFactory.getLogger(TransactionWatch.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final Admin admin;
    private final String bootstrapServers;
    private final List<String> topics;
    private final Duration maxTransactionTimeout;
    private final Metrics metrics;
    private final ScheduledExecutorService scheduler;
    private final Set<OpenTransaction> reported = new HashSet<>();
    private volatile List<OpenTransaction> hanging = List.of();

    /**
     * @param maxTransactionTimeout the broker's transaction.max.timeout.ms (15 min by default): a transaction silent
     *                              for longer can only be hanging
     */
    public TransactionWatch(Map<String, Object> client, String applicationId, String bootstrapServers,
                            Collection<String> topics, Duration maxTransactionTimeout) {
        this.admin = Admin.create(client);
        this.bootstrapServers = bootstrapServers;
        this.topics = new ArrayList<>(topics);
        this.topics.add(OFFSETS_TOPIC);
        this.maxTransactionTimeout = maxTransactionTimeout;
        this.metrics = new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM,
                new KafkaMetricsContext("cognition.health"));
        metrics.addMetric(metrics.metricName("hanging-transactions", "transactions",
                        "Transactions open on the pipeline's partitions for longer than any timeout allows",
                        Map.of("application-id", applicationId)),
                (Gauge<Integer>) (config, now) -> hanging.size());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "transaction-watch");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Checks every {@code interval} from now on. */
    public TransactionWatch every(Duration interval) {
        scheduler.scheduleWithFixedDelay(this::checkQuietly, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
        return this;
    }

    /** One look: the hanging transactions now, each new one logged. */
    public synchronized List<OpenTransaction> check() throws InterruptedException, ExecutionException,
            TimeoutException {
        List<OpenTransaction> found = HangingTransactions.hanging(openTransactions(), Instant.now(),
                maxTransactionTimeout);
        for (OpenTransaction transaction : found) {
            if (reported.add(transaction)) {
                LOG.error("hanging transaction on {}: read_committed readers of the partition and exactly-once "
                        + "consumers of it stop here until it is aborted. Check with `kafka-transactions.sh "
                        + "--bootstrap-server {} find-hanging --broker-id <leader>`, abort on every partition it "
                        + "spans with: {}", transaction, bootstrapServers, transaction.abortCommand(bootstrapServers));
            }
        }
        reported.retainAll(found);
        hanging = found;
        return found;
    }

    /** What Admin#abortTransaction needs to close {@code transaction} on its partition: an operator's decision. */
    public static AbortTransactionSpec abortSpec(OpenTransaction transaction) {
        return new AbortTransactionSpec(new TopicPartition(transaction.topic(), transaction.partition()),
                transaction.producerId(), (short) transaction.producerEpoch(), transaction.coordinatorEpoch());
    }

    /** The hanging transactions the last check found. */
    public List<OpenTransaction> hanging() {
        return hanging;
    }

    private void checkQuietly() {
        try {
            check();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warn("could not look for hanging transactions, will try again: {}", e.toString());
        }
    }

    private List<OpenTransaction> openTransactions() throws InterruptedException, ExecutionException,
            TimeoutException {
        List<TopicPartition> partitions = new ArrayList<>();
        for (var described : admin.describeTopics(topics).topicNameValues().entrySet()) {
            TopicDescription topic;
            try {
                topic = described.getValue().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                // Not created yet (the offsets topic appears with the first consumer group).
                continue;
            }
            topic.partitions().forEach(partition -> partitions.add(new TopicPartition(topic.name(),
                    partition.partition())));
        }
        DescribeProducersResult result = admin.describeProducers(partitions);
        List<OpenTransaction> open = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            DescribeProducersResult.PartitionProducerState state;
            try {
                state = result.partitionResult(partition).get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                // A partition without a leader right now: the next check sees it.
                LOG.debug("no producer state for {}: {}", partition, e.getCause().toString());
                continue;
            }
            for (ProducerState producer : state.activeProducers()) {
                if (producer.currentTransactionStartOffset().isPresent()) {
                    open.add(new OpenTransaction(partition.topic(), partition.partition(), producer.producerId(),
                            producer.producerEpoch(), producer.coordinatorEpoch().orElse(-1),
                            producer.currentTransactionStartOffset().getAsLong(),
                            Instant.ofEpochMilli(producer.lastTimestamp())));
                }
            }
        }
        return open;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        metrics.close();
        admin.close(Duration.ofSeconds(5));
    }
}
