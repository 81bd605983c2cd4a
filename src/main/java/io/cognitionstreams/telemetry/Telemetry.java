package io.cognitionstreams.telemetry;

import java.util.Objects;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The process's meters: one registry every count of the app and every Kafka client's metric goes to
 * ({@link Meters}, {@link KafkaMetricsBridge}). It holds no registry of its own until {@link #prometheus} is called
 * (`run --metrics-port`): until then a count of {@link Meters} returns at its first check.
 */
public final class Telemetry {

    /** Label of every series: the app's application id (several apps may share a Prometheus). */
    public static final String APPLICATION_ID = "application_id";
    /** Label of every series: the instance (its state directory's id), as Prometheus' own instance is host:port. */
    public static final String INSTANCE_ID = "instance_id";

    private static final CompositeMeterRegistry METERS = new CompositeMeterRegistry();
    private static volatile String applicationId = "";
    /** Whether any registry is behind {@link #METERS}: while none is, the app's counts return at once. */
    private static volatile boolean watched;

    private Telemetry() {
    }

    /** Where counts go: every registry added to the process, none at first. */
    public static MeterRegistry meters() {
        return METERS;
    }

    /** The application id {@link #prometheus} was started with, or "" (capability labels are cut from it). */
    static String applicationId() {
        return applicationId;
    }

    /**
     * A Prometheus registry for this process, its series labelled with the application and instance ids, with the
     * JVM's own meters; every meter of {@link #meters()} reaches it, those made before this call too.
     */
    public static PrometheusMeterRegistry prometheus(String applicationId, String instanceId) {
        Telemetry.applicationId = Objects.requireNonNull(applicationId);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags(Tags.of(APPLICATION_ID, applicationId, INSTANCE_ID, instanceId));
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        add(registry);
        return registry;
    }

    /** Whether counts go anywhere: false until a registry is added (`run` without --metrics-port). */
    static boolean watched() {
        return watched;
    }

    /** Adds a registry (tests read counts from a SimpleMeterRegistry). */
    public static synchronized void add(MeterRegistry registry) {
        METERS.add(registry);
        watched = true;
    }

    public static synchronized void remove(MeterRegistry registry) {
        METERS.remove(registry);
        watched = !METERS.getRegistries().isEmpty();
    }
}
