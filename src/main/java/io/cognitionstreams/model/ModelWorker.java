package io.cognitionstreams.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.telemetry.Meters;
import io.cognitionstreams.telemetry.Tracing;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.worker.ParallelLoop;
import io.cognitionstreams.worker.WorkerLetters;

/**
 * Reads packets, asks the model, writes outputs, on a {@link ParallelLoop} rather than a Kafka Streams processor,
 * because a model call can take seconds to minutes and must not hold up a stream thread or its commits. Many calls
 * are in flight at once, one per session (the packets' key), so a session's turns are answered in order while many
 * sessions are answered side by side. Every packet gets exactly one answer (or one dead letter) even across crashes.
 * The worker knows packets and outputs ({@link ModelTurn} makes the call and reads the answer); waiting out an
 * endpoint's outages is the model client's ({@link ResilientModel}), so a failure that reaches the worker is one that
 * can never succeed.
 */
public final class ModelWorker implements Runnable, AutoCloseable, ParallelLoop.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(ModelWorker.class);
    private static final String COMPONENT = "model-worker";

    private final Topics topics;
    private final ModelClient model;
    private final String groupId;
    private final ParallelLoop loop;
    private final AnswerStreams streams;

    /**
     * @param clientConfig   bootstrap servers and any security settings, shared by consumer and producer
     * @param instanceId     this process's name across restarts ({@link ParallelLoop})
     * @param concurrency    model calls in flight at once, one session each
     * @param sessionTimeout how long a worker that dies for good keeps its partitions
     * @param streams        how calls are made: {@link StreamedAnswers} previews each answer as it is written
     */
    public ModelWorker(Map<String, Object> clientConfig, String groupId, String instanceId, Topics topics,
                       ModelClient model, int concurrency, Duration sessionTimeout, AnswerStreams streams) {
        this.streams = streams;
        this.topics = topics;
        this.model = model;
        this.groupId = groupId;
        this.loop = new ParallelLoop(COMPONENT, clientConfig, groupId, instanceId, topics.packets.name(),
                ParallelLoop.Limits.of(concurrency), sessionTimeout, this);
    }

    @Override
    public void run() {
        loop.run();
    }

    /** Starts the model call for one packet; the answer, or a dead letter when it can never be had, follows. */
    @Override
    public ParallelLoop.Work start(ConsumerRecord<byte[], byte[]> record) {
        Tracing.Hop hop = Tracing.continueFrom(record);
        CognitionPacket packet;
        try {
            packet = topics.packets.valueSerde().deserializer().deserialize(record.topic(), record.value());
            if (packet == null) {
                throw new IllegalArgumentException("packet value is null (a tombstone is not a packet)");
            }
        } catch (RuntimeException e) {
            hop.close();
            return ParallelLoop.Work.done(List.of(WorkerLetters.deadLetter(topics, record, ErrorKind.DESERIALIZATION,
                    e, COMPONENT, groupId)));
        }
        CompletableFuture<ModelClient.Completion> call = streams.call(model, ModelTurn.call(packet, null), packet);
        // The hop is not the thread's current span, so the answer may end it on whichever thread completes the call.
        CompletableFuture<List<ProducerRecord<byte[], byte[]>>> outputs = call.handle((completion, failure) -> {
            try (hop) {
                return List.of(hop.inject(failure == null ? output(record, packet, completion, hop)
                        : refused(record, packet, ModelClient.ModelException.of(failure))));
            }
        });
        // The loop gives up on a packet whose partition goes elsewhere: so does its call.
        outputs.whenComplete((done, error) -> {
            if (outputs.isCancelled()) {
                call.cancel(true);
                hop.close();
            }
        });
        return ParallelLoop.Work.later(outputs);
    }

    @Override
    public ProducerRecord<byte[], byte[]> failed(ConsumerRecord<byte[], byte[]> record, Throwable error) {
        return WorkerLetters.deadLetter(topics, record, ErrorKind.PROCESSING, error, COMPONENT, groupId);
    }

    private ProducerRecord<byte[], byte[]> output(ConsumerRecord<byte[], byte[]> record, CognitionPacket packet,
                                                  ModelClient.Completion completion, Tracing.Hop hop) {
        LlmOutput output = ModelTurn.output(packet, completion, Instant.now());
        Meters.answered(output.getModel(), output.getPromptTokens(), output.getCompletionTokens(),
                Duration.ofMillis(output.getLatencyMs()));
        hop.chat(output);
        try {
            return new ProducerRecord<>(topics.llmOutputs.name(), record.key(),
                    topics.llmOutputs.valueSerde().serializer().serialize(topics.llmOutputs.name(), output));
        } catch (OutputGuard.RefusedOutputException e) {
            LOG.warn("the answer to packet {} of session {} cannot be written: {}", packet.getMeta().getPacketId(),
                    packet.getSessionId(), e.getMessage());
            return WorkerLetters.deadLetter(topics, record, ErrorKind.PROCESSING, e, COMPONENT, groupId);
        }
    }

    private ProducerRecord<byte[], byte[]> refused(ConsumerRecord<byte[], byte[]> record, CognitionPacket packet,
                                                   ModelClient.ModelException e) {
        LOG.warn("model failed for packet {} of session {}: {}", packet.getMeta().getPacketId(),
                packet.getSessionId(), e.getMessage());
        return WorkerLetters.deadLetter(topics, record, ErrorKind.PROCESSING, e, COMPONENT, groupId);
    }

    /** Packets answered (or dead-lettered) and committed since the start. */
    public long answered() {
        return loop.committed();
    }

    /** Model calls in flight now. */
    public int inFlight() {
        return loop.inFlight();
    }

    @Override
    public void close() {
        loop.close();
    }
}
