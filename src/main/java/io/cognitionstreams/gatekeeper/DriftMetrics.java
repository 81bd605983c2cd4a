package io.cognitionstreams.gatekeeper;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.StreamsMetrics;

import io.cognitionstreams.skills.ToolNames;

/**
 * Denials per skill and tool as Kafka Streams metrics, so they show in JMX beside the app's own: group
 * {@code stream-gatekeeper-metrics}, metrics {@code denied-calls-total} and {@code denied-calls-rate}, tagged
 * {@code skill}, {@code tool}, {@code thread-id} and Kafka's entity tag {@code gatekeeper-id} ({@code skill/tool}).
 * Tag values come from the calls, so they are bounded: a skill that is not a valid name is {@code (invalid)}, a tool
 * that is not a tool name {@code (malformed)}, no skill {@code (none)}, and past {@link #MAX_PAIRS} pairs per task
 * further ones count under {@code (other)}. One instance per processor: not thread-safe.
 */
final class DriftMetrics {

    static final String SCOPE = "gatekeeper";
    static final String OPERATION = "denied-calls";
    static final int MAX_PAIRS = 1000;
    static final String NONE = "(none)";
    static final String INVALID = "(invalid)";
    static final String MALFORMED = "(malformed)";
    static final String OTHER = "(other)";

    private final StreamsMetrics metrics;
    private final Map<String, Sensor> sensors = new HashMap<>();

    DriftMetrics(StreamsMetrics metrics) {
        this.metrics = metrics;
    }

    void recordDenial(String skill, String tool) {
        String skillTag = skillTag(skill);
        String toolTag = ToolNames.isWellFormed(tool) ? tool : MALFORMED;
        // Neither tag can hold '/', so the entity names one pair.
        String entity = skillTag + '/' + toolTag;
        Sensor sensor = sensors.get(entity);
        if (sensor == null && sensors.size() >= MAX_PAIRS) {
            skillTag = OTHER;
            toolTag = OTHER;
            entity = OTHER + '/' + OTHER;
            sensor = sensors.get(entity);
        }
        if (sensor == null) {
            sensor = metrics.addRateTotalSensor(SCOPE, entity, OPERATION, Sensor.RecordingLevel.INFO,
                    "skill", skillTag, "tool", toolTag);
            sensors.put(entity, sensor);
        }
        sensor.record();
    }

    private static String skillTag(String skill) {
        if (skill == null || skill.isEmpty()) {
            return NONE;
        }
        for (int i = 0; i < skill.length(); i++) {
            if (!ToolNames.isNameChar(skill.charAt(i))) {
                return INVALID;
            }
        }
        return skill;
    }
}
