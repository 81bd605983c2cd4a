package io.cognitionstreams.topology;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorWrapper;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.api.WrappedFixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.WrappedProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.deadletter.RefusedInputs;
import io.cognitionstreams.telemetry.Tracing;

/**
 * Wraps every processor of a topology (Kafka Streams' {@code processor.wrapper.class}, KIP-1112) so that an input
 * whose output the brokers refused ({@link RefusedInputs}) is refused by the first processor it reaches, before
 * anything of it is forwarded: a dead letter, and no part of an answer beside it. Costs one empty-map check per
 * record and processor while nothing is refused. It also opens each input record's trace span ({@link Tracing#hop}),
 * which costs one check while tracing is off.
 */
public final class InputGate implements ProcessorWrapper {

    private String applicationId;

    @Override
    public void configure(Map<String, ?> configs) {
        Object id = configs.get(StreamsConfig.APPLICATION_ID_CONFIG);
        applicationId = id == null ? null : id.toString();
    }

    @Override
    public <KIn, VIn, KOut, VOut> WrappedProcessorSupplier<KIn, VIn, KOut, VOut> wrapProcessorSupplier(
            String processorName, ProcessorSupplier<KIn, VIn, KOut, VOut> supplier) {
        return ProcessorWrapper.asWrapped(new ProcessorSupplier<>() {
            @Override
            public Processor<KIn, VIn, KOut, VOut> get() {
                Processor<KIn, VIn, KOut, VOut> inner = supplier.get();
                return new Processor<>() {
                    private ProcessorContext<KOut, VOut> context;

                    @Override
                    public void init(ProcessorContext<KOut, VOut> context) {
                        this.context = context;
                        inner.init(context);
                    }

                    @Override
                    public void process(Record<KIn, VIn> record) {
                        try (Tracing.Hop hop = hop(context.recordMetadata(), record.headers(), record.value())) {
                            refuseIfRefused(context.recordMetadata());
                            inner.process(record);
                        }
                    }

                    @Override
                    public void close() {
                        inner.close();
                    }
                };
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return supplier.stores();
            }
        });
    }

    @Override
    public <KIn, VIn, VOut> WrappedFixedKeyProcessorSupplier<KIn, VIn, VOut> wrapFixedKeyProcessorSupplier(
            String processorName, FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier) {
        return ProcessorWrapper.asWrappedFixedKey(new FixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<KIn, VIn, VOut> get() {
                FixedKeyProcessor<KIn, VIn, VOut> inner = supplier.get();
                return new FixedKeyProcessor<>() {
                    private FixedKeyProcessorContext<KIn, VOut> context;

                    @Override
                    public void init(FixedKeyProcessorContext<KIn, VOut> context) {
                        this.context = context;
                        inner.init(context);
                    }

                    @Override
                    public void process(FixedKeyRecord<KIn, VIn> record) {
                        try (Tracing.Hop hop = hop(context.recordMetadata(), record.headers(), record.value())) {
                            refuseIfRefused(context.recordMetadata());
                            inner.process(record);
                        }
                    }

                    @Override
                    public void close() {
                        inner.close();
                    }
                };
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return supplier.stores();
            }
        });
    }

    /** The trace span of the capability's work on an input record: opened by the first processor it reaches. */
    private Tracing.Hop hop(Optional<RecordMetadata> metadata, Headers headers, Object value) {
        return metadata.isEmpty() ? Tracing.Hop.NONE
                : Tracing.hop(applicationId, metadata.get().topic(), headers, value);
    }

    private void refuseIfRefused(Optional<RecordMetadata> metadata) {
        if (metadata.isEmpty()) {
            return;
        }
        RecordMetadata input = metadata.get();
        RefusedInputs.take(applicationId, input.topic(), input.partition(), input.offset()).ifPresent(reason -> {
            throw new InvalidRecordException("the brokers refused what this record led to: " + reason);
        });
    }
}
