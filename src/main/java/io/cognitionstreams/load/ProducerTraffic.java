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
 * What this process's Kafka producers sent, topic by topic, read from their JMX metrics. Unlike CPU time it does not
 * move with the machine's other load or the JIT: a step's records per answer say what a workload asks of the broker
 * and its clients (each record is written, replicated, fetched by its readers and, on a changelog, restored), so two
 * workloads compare by it run after run.
 */
public final class ProducerTraffic {

    private static final String TOPICS = "kafka.producer:type=producer-topic-metrics,client-id=*,topic=*";

    private ProducerTraffic() {
    }

    /** Records and bytes (as batched, after compression) sent to one topic. */
    public record Sent(double records, double bytes) {
        static final Sent NONE = new Sent(0, 0);

        Sent plus(Sent other) {
            return new Sent(records + other.records, bytes + other.bytes);
        }

        Sent minus(Sent other) {
            return new Sent(records - other.records, bytes - other.bytes);
        }

        Sent per(double answers) {
            return new Sent(records / answers, bytes / answers);
        }
    }

    /** Each producer's totals by topic at one moment. */
    public record Snapshot(Map<String, Map<String, Sent>> byClient) {
        /**
         * What the producers open now sent since {@code earlier}, by topic: all of it for one that started since, and
         * nothing of one that closed, whose totals went with it.
         */
        public Traffic since(Snapshot earlier) {
            Map<String, Sent> byTopic = new HashMap<>();
            byClient.forEach((client, topics) -> {
                Map<String, Sent> before = earlier.byClient.getOrDefault(client, Map.of());
                topics.forEach((topic, sent) -> byTopic.merge(topic, sent.minus(before.getOrDefault(topic,
                        Sent.NONE)), Sent::plus));
            });
            return new Traffic(Map.copyOf(byTopic));
        }
    }

    /** What was sent over an interval, by topic. */
    public record Traffic(Map<String, Sent> byTopic) {
        public static final Traffic NONE = new Traffic(Map.of());

        public Sent total() {
            return byTopic.values().stream().reduce(Sent.NONE, Sent::plus);
        }

        /** The same, divided by {@code answers}; nothing when nothing was answered. */
        public Traffic per(int answers) {
            if (answers <= 0) {
                return NONE;
            }
            Map<String, Sent> per = new HashMap<>();
            byTopic.forEach((topic, sent) -> per.put(topic, sent.per(answers)));
            return new Traffic(Map.copyOf(per));
        }

        /** Each topic's records in this less {@code baseline}'s, largest change first, those that changed at all. */
        public List<Map.Entry<String, Double>> recordsAgainst(Traffic baseline) {
            Set<String> topics = new HashSet<>(byTopic.keySet());
            topics.addAll(baseline.byTopic.keySet());
            return topics.stream()
                    .map(topic -> Map.entry(topic, byTopic.getOrDefault(topic, Sent.NONE).records()
                            - baseline.byTopic.getOrDefault(topic, Sent.NONE).records()))
                    .filter(change -> Math.abs(change.getValue()) >= 0.005)
                    .sorted(Comparator.comparingDouble((Map.Entry<String, Double> change)
                            -> -Math.abs(change.getValue())).thenComparing(Map.Entry::getKey))
                    .toList();
        }
    }

    /** The totals of every producer of this process now; nothing where JMX cannot be read. */
    public static Snapshot snapshot() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Map<String, Map<String, Sent>> byClient = new HashMap<>();
        try {
            for (ObjectName topic : server.queryNames(new ObjectName(TOPICS), null)) {
                try {
                    Sent sent = new Sent(number(server.getAttribute(topic, "record-send-total")),
                            number(server.getAttribute(topic, "byte-total")));
                    byClient.computeIfAbsent(topic.getKeyProperty("client-id"), client -> new HashMap<>())
                            .put(topic.getKeyProperty("topic"), sent);
                } catch (JMException gone) {
                    // The producer closed between the query and the read: its totals went with it (see since).
                }
            }
        } catch (JMException notReadable) {
            return new Snapshot(Map.of());
        }
        return new Snapshot(Map.copyOf(byClient));
    }

    private static double number(Object value) {
        return value instanceof Number number ? number.doubleValue() : 0;
    }
}
