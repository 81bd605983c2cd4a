package io.cognitionstreams.load;

import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What Kafka did for a step, counted from the JMX metrics of this process: the records and bytes its producers sent,
 * topic by topic, and, with the broker in the process, the requests it handled by type. Per answer they say what a
 * workload asks of the broker and its clients (each record is written, fetched by its readers and, on a changelog,
 * restored; each request is handled, and each transaction's commit writes a marker into every partition it wrote),
 * and unlike CPU time they do not move with the machine's other load or the JIT. Requests per answer do move with
 * the rate answered (commits and polls come at their own pace): two workloads compare by them where both keep up.
 * Brokers in one JVM share their request meters, and one that stops unregisters them for all: the requests are
 * those of a JVM whose brokers run throughout, as the bench's own.
 */
public final class KafkaTraffic {

    private static final String TOPICS = "kafka.producer:type=producer-topic-metrics,client-id=*,topic=*";
    /** The broker's request meters, one per request type and version (Yammer, which Kafka's broker reports in). */
    private static final String REQUESTS = "kafka.network:type=RequestMetrics,name=RequestsPerSec,*";

    private KafkaTraffic() {
    }

    /** Counts by name: records or bytes by topic, requests by type. */
    public record Tally(Map<String, Double> counts) {
        public static final Tally NONE = new Tally(Map.of());

        public double total() {
            return counts.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        /** The same, divided by {@code answers}; nothing when nothing was answered. */
        public Tally per(int answers) {
            if (answers <= 0) {
                return NONE;
            }
            Map<String, Double> per = new HashMap<>();
            counts.forEach((name, count) -> per.put(name, count / answers));
            return new Tally(Map.copyOf(per));
        }

        /** Each count less {@code baseline}'s, largest change first, leaving out those that did not change. */
        public List<Map.Entry<String, Double>> against(Tally baseline) {
            Set<String> names = new HashSet<>(counts.keySet());
            names.addAll(baseline.counts.keySet());
            return names.stream()
                    .map(name -> Map.entry(name, counts.getOrDefault(name, 0.0)
                            - baseline.counts.getOrDefault(name, 0.0)))
                    .filter(change -> Math.abs(change.getValue()) >= 0.005)
                    .sorted(Comparator.comparingDouble((Map.Entry<String, Double> change)
                            -> -Math.abs(change.getValue())).thenComparing(Map.Entry::getKey))
                    .toList();
        }

        private Tally minus(Tally earlier) {
            Map<String, Double> left = new HashMap<>();
            counts.forEach((name, count) -> left.put(name, count - earlier.counts.getOrDefault(name, 0.0)));
            return new Tally(Map.copyOf(left));
        }

        private static Tally sum(Iterable<Tally> tallies) {
            Map<String, Double> sum = new HashMap<>();
            tallies.forEach(tally -> tally.counts.forEach((name, count) -> sum.merge(name, count, Double::sum)));
            return new Tally(Map.copyOf(sum));
        }
    }

    /** What was sent (records and bytes as batched, after compression, by topic) and what the broker handled. */
    public record Traffic(Tally records, Tally bytes, Tally requests) {
        public static final Traffic NONE = new Traffic(Tally.NONE, Tally.NONE, Tally.NONE);

        public Traffic per(int answers) {
            return new Traffic(records.per(answers), bytes.per(answers), requests.per(answers));
        }
    }

    /**
     * Each producer's totals by topic, and the broker's requests by type, at one moment.
     *
     * @param records  by client id, its records by topic
     * @param bytes    by client id, its bytes by topic
     * @param requests the in-process broker's requests by type since it started; empty with another broker
     */
    public record Snapshot(Map<String, Tally> records, Map<String, Tally> bytes, Tally requests) {
        /**
         * What happened since {@code earlier}: what the producers open now sent (all of it for one that started
         * since, nothing of one that closed, whose totals went with it), and the requests the broker handled.
         */
        public Traffic since(Snapshot earlier) {
            return new Traffic(since(records, earlier.records), since(bytes, earlier.bytes),
                    requests.minus(earlier.requests));
        }

        private static Tally since(Map<String, Tally> now, Map<String, Tally> earlier) {
            return Tally.sum(now.entrySet().stream()
                    .map(client -> client.getValue().minus(earlier.getOrDefault(client.getKey(), Tally.NONE)))
                    .toList());
        }
    }

    /** This process's counts now; nothing where JMX cannot be read. */
    public static Snapshot snapshot() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Map<String, Map<String, Double>> records = new HashMap<>();
        Map<String, Map<String, Double>> bytes = new HashMap<>();
        Map<String, Double> requests = new HashMap<>();
        try {
            for (ObjectName topic : server.queryNames(new ObjectName(TOPICS), null)) {
                String client = topic.getKeyProperty("client-id");
                try {
                    double sent = number(server.getAttribute(topic, "record-send-total"));
                    double batched = number(server.getAttribute(topic, "byte-total"));
                    records.computeIfAbsent(client, id -> new HashMap<>()).put(topic.getKeyProperty("topic"), sent);
                    bytes.computeIfAbsent(client, id -> new HashMap<>()).put(topic.getKeyProperty("topic"), batched);
                } catch (JMException gone) {
                    // The producer closed between the query and the read: its totals went with it (see since).
                }
            }
            for (ObjectName meter : server.queryNames(new ObjectName(REQUESTS), null)) {
                try {
                    requests.merge(meter.getKeyProperty("request"), number(server.getAttribute(meter, "Count")),
                            Double::sum);
                } catch (JMException gone) {
                    // A meter the broker removed as it stopped.
                }
            }
        } catch (JMException notReadable) {
            return new Snapshot(Map.of(), Map.of(), Tally.NONE);
        }
        return new Snapshot(tallies(records), tallies(bytes), new Tally(Map.copyOf(requests)));
    }

    private static Map<String, Tally> tallies(Map<String, Map<String, Double>> byClient) {
        Map<String, Tally> tallies = new HashMap<>();
        byClient.forEach((client, counts) -> tallies.put(client, new Tally(Map.copyOf(counts))));
        return Map.copyOf(tallies);
    }

    private static double number(Object value) {
        return value instanceof Number number ? number.doubleValue() : 0;
    }
}
