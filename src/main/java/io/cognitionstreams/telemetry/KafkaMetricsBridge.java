package io.cognitionstreams.telemetry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsContext;
import org.apache.kafka.common.metrics.MetricsReporter;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;

/**
 * Kafka's own metrics, of every client of the process (each capability's Kafka Streams and its consumers, producers
 * and admin client, the workers' clients, the transaction watch's gauges), bridged into {@link Telemetry#meters()}.
 * Kafka instantiates it from {@code metric.reporters}, which {@link #clientSettings} puts in the settings every
 * client gets; so no code that makes a client has to know about metrics. Kafka pushes each metric as it is made
 * and removed (no polling), and the value is read at scrape time.
 *
 * <p>Names as Micrometer's Kafka binders make them, so dashboards made for those fit: {@code kafka.<group>.<name>}
 * without {@code -metrics} (Kafka Streams' {@code stream-thread-metrics} {@code process-rate} is
 * {@code kafka_stream_thread_process_rate}); {@code *-total} and {@code *-count} are counters. The app's own gauges
 * (namespace {@code cognition.*}) are {@code cognition.<name>}. Prometheus needs one label set per name, and Kafka
 * has a few metrics at two levels (a consumer's records-lag-max with and without topic and partition): the more
 * detailed one is kept, as Micrometer does. Only numeric metrics are bridged.
 */
public final class KafkaMetricsBridge implements MetricsReporter {

    private static final String APP_INFO = "app-info";
    private static final String METRICS_COUNT = "kafka-metrics-count";

    /** Every bridged meter of the process by name, for the label-set rule (a registry search is linear). */
    private static final Map<String, List<Meter>> BY_NAME = new HashMap<>();

    private final Map<MetricName, Meter> meters = new HashMap<>();
    private String prefix = "kafka.";

    /**
     * {@code settings} with this bridge added to its {@code metric.reporters}, after any it names; where they name
     * none, after Kafka's default JMX reporter, which naming any list drops (JMX tools such as Kafka UI's read it).
     */
    public static Map<String, Object> clientSettings(Map<String, Object> settings) {
        Map<String, Object> with = new HashMap<>(settings);
        Object given = settings.get(org.apache.kafka.clients.CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG);
        List<String> reporters = new ArrayList<>();
        if (given == null) {
            reporters.add(JmxReporter.class.getName());
        } else if (given instanceof List<?> list) {
            list.forEach(item -> reporters.add(item instanceof Class<?> type ? type.getName() : item.toString()));
        } else if (given != null && !given.toString().isBlank()) {
            for (String name : given.toString().split(",")) {
                reporters.add(name.strip());
            }
        }
        if (!reporters.contains(KafkaMetricsBridge.class.getName())) {
            reporters.add(KafkaMetricsBridge.class.getName());
        }
        with.put(org.apache.kafka.clients.CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG,
                String.join(",", reporters));
        return with;
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public void contextChange(MetricsContext context) {
        String namespace = context.contextLabels().getOrDefault(MetricsContext.NAMESPACE, "kafka");
        prefix = namespace.startsWith("cognition") ? "cognition." : "kafka.";
    }

    @Override
    public void init(List<KafkaMetric> metrics) {
        metrics.forEach(this::metricChange);
    }

    @Override
    public void metricChange(KafkaMetric metric) {
        MetricName name = metric.metricName();
        if (APP_INFO.equals(name.group()) || METRICS_COUNT.equals(name.group())
                || !(metric.metricValue() instanceof Number)) {
            return;
        }
        synchronized (KafkaMetricsBridge.class) {
            remove(name);
            Meter meter = register(Telemetry.meters(), meterName(name), tags(name), metric);
            if (meter != null) {
                meters.put(name, meter);
            }
        }
    }

    @Override
    public void metricRemoval(KafkaMetric metric) {
        synchronized (KafkaMetricsBridge.class) {
            remove(metric.metricName());
        }
    }

    @Override
    public void close() {
        synchronized (KafkaMetricsBridge.class) {
            meters.values().forEach(KafkaMetricsBridge::unregister);
            meters.clear();
        }
    }

    private void remove(MetricName name) {
        Meter meter = meters.remove(name);
        if (meter != null) {
            unregister(meter);
        }
    }

    private static void unregister(Meter meter) {
        Telemetry.meters().remove(meter);
        List<Meter> named = BY_NAME.get(meter.getId().getName());
        if (named != null) {
            named.remove(meter);
        }
    }

    /**
     * Registers the meter unless one of the same name has more labels; one with fewer is dropped for it (Prometheus
     * takes one label set per name). Null when not registered.
     */
    private static Meter register(MeterRegistry registry, String name, List<Tag> tags, KafkaMetric metric) {
        Set<String> keys = tags.stream().map(Tag::getKey).collect(Collectors.toSet());
        List<Meter> named = BY_NAME.computeIfAbsent(name, key -> new ArrayList<>());
        for (Meter other : List.copyOf(named)) {
            int otherKeys = other.getId().getTags().size();
            if (otherKeys > keys.size()) {
                return null;
            }
            if (otherKeys < keys.size()) {
                unregister(other);
            }
        }
        String description = metric.metricName().description();
        Meter meter = name.endsWith(".total") || name.endsWith(".count")
                ? FunctionCounter.builder(name, metric, KafkaMetricsBridge::value).tags(tags)
                        .description(description).register(registry)
                : Gauge.builder(name, metric, KafkaMetricsBridge::value).tags(tags).description(description)
                        .register(registry);
        if (!named.contains(meter)) {
            named.add(meter);
        }
        return meter;
    }

    private static double value(KafkaMetric metric) {
        Object value = metric.metricValue();
        return value instanceof Number number ? number.doubleValue() : Double.NaN;
    }

    private String meterName(MetricName name) {
        if (prefix.equals("cognition.")) {
            return (prefix + name.name()).replace('-', '.');
        }
        return (prefix + name.group() + "." + name.name()).replace("-metrics", "").replace('-', '.');
    }

    private static List<Tag> tags(MetricName name) {
        List<Tag> tags = new ArrayList<>();
        name.tags().forEach((key, value) -> {
            String label = key.replace('-', '_');
            // Every series has them already (the transaction watch tags its gauges with the application id).
            if (!label.equals(Telemetry.APPLICATION_ID) && !label.equals(Telemetry.INSTANCE_ID)) {
                tags.add(Tag.of(key.replace('-', '.'), value));
            }
        });
        return tags;
    }
}
