package io.cognitionstreams.topology;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.schema.RoutedBlock;

/**
 * A {@link ChannelCheck} in front of a channel topic's sink. A finding is written redacted, logged (ids and types,
 * never the text) and counted, one per block, in the metric {@code residual-redactions-total} (group
 * {@code stream-redaction-metrics}, tag {@code channel} and entity tag {@code redaction-id}, both the channel
 * topic), which should stay at zero: anything else names a gap in redaction or a writer that bypasses it.
 */
final class LastCheckProcessor implements FixedKeyProcessor<String, SpecificRecord, SpecificRecord> {

    static final String SCOPE = "redaction";
    static final String OPERATION = "residual-redactions";

    private static final Logger log = LoggerFactory.getLogger(LastCheckProcessor.class);

    private final ChannelCheck check;
    private final String topic;
    private FixedKeyProcessorContext<String, SpecificRecord> context;
    private Sensor residue;

    LastCheckProcessor(ChannelCheck check, String topic) {
        this.check = check;
        this.topic = topic;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        residue = context.metrics().addRateTotalSensor(SCOPE, topic, OPERATION, Sensor.RecordingLevel.INFO,
                "channel", topic);
    }

    @Override
    public void process(FixedKeyRecord<String, SpecificRecord> record) {
        if (!(record.value() instanceof RoutedBlock block)) {
            context.forward(record);
            return;
        }
        check.residue(block).ifPresentOrElse(found -> {
            log.warn("last check on {}: block {} of session {} still held {}; redacted now", topic,
                    block.getBlockId(), block.getSessionId(), found.found());
            residue.record();
            context.forward(record.withValue(found.redacted()));
        }, () -> context.forward(record));
    }
}
