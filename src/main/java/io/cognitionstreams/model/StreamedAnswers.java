package io.cognitionstreams.model;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.routing.ResponsePreview;
import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * {@code --model-stream}: each call's RESPONSE text, redacted as it arrives ({@link ResponsePreview}), goes to the
 * stream topics of its session's chat channels, {@code channel.<chat>.stream} (its tenant's own for a tenant's
 * session). A preview, at most once: a plain idempotent producer outside the worker's transaction, so a delta is
 * never written twice but may be lost (a gap in its sequence), and a call cut off by a crash is previewed again,
 * under a new call id, when its packet is answered again. The complete blocks still reach the channel topics
 * exactly once, through routing, as without streaming.
 *
 * <p>A model may send a piece per token or per character: text is sent at once when none went for
 * {@link #FLUSH_EVERY}, else gathered until then (or {@link #FLUSH_CHARS}), so a flood of pieces becomes a few
 * records a second per answer.
 */
public final class StreamedAnswers implements AnswerStreams {

    private static final Logger LOG = LoggerFactory.getLogger(StreamedAnswers.class);
    static final Duration FLUSH_EVERY = Duration.ofMillis(50);
    static final int FLUSH_CHARS = 4096;
    /** How long the end of a preview may hold up the answer's output: what puts the deltas before the blocks. */
    static final Duration ACK_WAIT = Duration.ofSeconds(1);
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private final Topics topics;
    private final OutputRouter router;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ScheduledExecutorService timer;
    private final AtomicLong lost = new AtomicLong();
    private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_EVERY.toNanos());

    /**
     * @param clientConfig bootstrap servers and any security settings
     * @param router       the destination matrix and redactor routing applies, so the preview follows them
     */
    public StreamedAnswers(Map<String, Object> clientConfig, Topics topics, OutputRouter router) {
        this.topics = topics;
        this.router = router;
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // A broker out of reach must not hold up the model client's threads: the preview is lost instead.
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "model-worker-answer-streams");
        this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "answer-streams");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public CompletableFuture<ModelClient.Completion> call(ModelClient model, ModelClient.ModelCall call,
                                                          CognitionPacket packet) {
        if (packet.getMeta().getTimeTravel() != null) {
            // A replayed or forked turn: nobody is waiting for it, and its blocks say what they are (time_travel).
            return model.call(call);
        }
        Preview preview = new Preview(packet);
        CompletableFuture<ModelClient.Completion> answer;
        try {
            answer = model.call(new ModelClient.ModelCall(call.model(), call.prompt(), call.tools(), preview::accept));
        } catch (RuntimeException e) {
            preview.end(null, e);
            throw e;
        }
        // The answer is handed on once the end of its preview is acknowledged (or ACK_WAIT has passed), without
        // holding the thread that completed it: with many calls in flight, that may be the client's own.
        CompletableFuture<ModelClient.Completion> ended = answer.handle(preview::end)
                .thenCompose(acknowledged -> acknowledged.completeOnTimeout(null, ACK_WAIT.toMillis(),
                        TimeUnit.MILLISECONDS))
                .thenCompose(acknowledged -> answer);
        // Giving up on the answer gives up on the call itself, not only on waiting for its preview.
        ended.whenComplete((completion, failure) -> {
            if (failure instanceof CancellationException) {
                answer.cancel(true);
            }
        });
        return ended;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        producer.close(Duration.ofSeconds(5));
    }

    private ResponsePreview preview(CognitionPacket packet) {
        return new ResponsePreview(router, new ResponsePreview.Answer(packet.getSessionId(),
                packet.getMeta().getPacketId(), packet.getRequestId(),
                Long.toHexString(ThreadLocalRandom.current().nextLong())), Instant::now);
    }

    /** One call's preview and when its text last went out. */
    private final class Preview {
        private final CognitionPacket packet;
        private final ResponsePreview preview;
        private long sentAt = System.nanoTime() - FLUSH_EVERY.toNanos();
        private ScheduledFuture<?> flush;

        Preview(CognitionPacket packet) {
            this.packet = packet;
            this.preview = preview(packet);
        }

        synchronized void accept(String piece) {
            preview.accept(piece);
            int pending = preview.pending();
            boolean ending = preview.ending();
            if (pending == 0 && !ending) {
                return;
            }
            if (ending || pending >= FLUSH_CHARS || System.nanoTime() - sentAt >= FLUSH_EVERY.toNanos()) {
                send(preview.drain());
            } else if (flush == null) {
                try {
                    flush = timer.schedule(this::flush, FLUSH_EVERY.toNanos() - (System.nanoTime() - sentAt),
                            TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closing) {
                    send(preview.drain());
                }
            }
        }

        private synchronized void flush() {
            flush = null;
            send(preview.drain());
        }

        /**
         * The call is over: the rest and the end go out. Completes once the broker has acknowledged them (or failed
         * to), so that the answer is written after its preview; never fails.
         */
        synchronized CompletableFuture<Void> end(ModelClient.Completion completion, Throwable failure) {
            try {
                if (flush != null) {
                    flush.cancel(false);
                    flush = null;
                }
                List<AnswerDelta> deltas = new ArrayList<>(failure == null ? preview.complete(completion.text())
                        : preview.abandon(failure instanceof CancellationException
                                ? "the call was given up (the worker stopped, or the packet's partition moved): the "
                                        + "packet is answered again"
                                : ModelClient.ModelException.of(failure).getMessage()));
                if (preview.diverged()) {
                    // The client retried within the call and streamed each attempt: readers drop what streamed,
                    // and the answer follows whole under another call id.
                    deltas.addAll(preview(packet).complete(completion.text()));
                }
                return send(deltas);
            } catch (RuntimeException e) {
                // A preview must never fail the answer it previews.
                warn("a preview failed: " + e);
                return CompletableFuture.completedFuture(null);
            }
        }

        /** Sends the deltas in order; the future completes when the broker has answered for the last one. */
        private CompletableFuture<Void> send(List<AnswerDelta> deltas) {
            CompletableFuture<Void> acknowledged = new CompletableFuture<>();
            for (int i = 0; i < deltas.size(); i++) {
                AnswerDelta delta = deltas.get(i);
                boolean last = i == deltas.size() - 1;
                Topic<String, AnswerDelta> topic = topics.streamFor(delta.getSessionId(),
                        Channel.ofId(delta.getChannel()).orElseThrow());
                try {
                    byte[] value = topic.valueSerde().serializer().serialize(topic.name(), delta);
                    producer.send(new ProducerRecord<>(topic.name(),
                            delta.getSessionId().getBytes(StandardCharsets.UTF_8), value), (metadata, error) -> {
                                if (error != null) {
                                    lose("a delta for " + topic.name() + " was not written: " + error);
                                }
                                if (last) {
                                    acknowledged.complete(null);
                                }
                            });
                } catch (RuntimeException e) {
                    lose("a delta for " + topic.name() + " was not sent: " + e);
                    if (last) {
                        acknowledged.complete(null);
                    }
                }
            }
            if (deltas.isEmpty()) {
                acknowledged.complete(null);
            }
            sentAt = System.nanoTime();
            return acknowledged;
        }
    }

    private void lose(String why) {
        lost.incrementAndGet();
        warn(why + " (" + lost.get() + " deltas lost since the start; previews are at most once)");
    }

    /** At most once a minute: an unreachable broker must not flood the log with one line per delta. */
    private void warn(String message) {
        long now = System.nanoTime();
        long last = lastWarning.get();
        if (now - last >= WARN_EVERY.toNanos() && lastWarning.compareAndSet(last, now)) {
            LOG.warn(message);
        }
    }
}
