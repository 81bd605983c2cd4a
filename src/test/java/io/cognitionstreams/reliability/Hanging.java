package io.cognitionstreams.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;

import io.cognitionstreams.health.HangingTransactions.OpenTransaction;
import io.cognitionstreams.health.TransactionWatch;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Hanging transactions, as a run that stalls looks for them: transactions the broker lost the markers of, so that
 * read_committed readers stop at them for good (docs/reliability.md). And the abort an operator would do.
 */
final class Hanging {

    private Hanging() {
    }

    /**
     * Transactions open on the pipeline's topics and the consumer offsets for longer than {@code silentFor}: with
     * the app's 10 s transaction timeout, anything silent for much longer is hanging.
     */
    static List<OpenTransaction> find(String bootstrap, Topics topics, Duration silentFor) throws Exception {
        try (TransactionWatch watch = new TransactionWatch(client(bootstrap), "reliability-run", bootstrap,
                topics.all().stream().map(Topic::name).toList(), silentFor, id -> false, false)) {
            return watch.check();
        }
    }

    /**
     * Aborts each on its partition, as {@code kafka-transactions.sh abort} does: its records there are discarded.
     * Where the coordinator had committed the transaction and other partitions got their markers, what it
     * consumed is read again, and what it wrote there is written twice.
     */
    static void abort(String bootstrap, List<OpenTransaction> hanging) throws Exception {
        try (Admin admin = Admin.create(client(bootstrap))) {
            for (OpenTransaction transaction : hanging) {
                admin.abortTransaction(TransactionWatch.abortSpec(transaction)).all().get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static Map<String, Object> client(String bootstrap) {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    }
}
