package io.cognitionstreams.topology;

import org.apache.kafka.streams.processor.api.ProcessorContext;

import io.cognitionstreams.events.PipelineEvents;

/** Where the record a processor is processing sits: what the events it leads to take their ids from. */
public final class EventSources {

    private EventSources() {
    }

    /** Only while a record is processed: a punctuator has no input record to name. */
    public static PipelineEvents.Source of(ProcessorContext<?, ?> context) {
        return context.recordMetadata()
                .map(metadata -> new PipelineEvents.Source(metadata.topic(), metadata.partition(), metadata.offset()))
                .orElseThrow(() -> new IllegalStateException("no input record: events are ids of their input"));
    }
}
