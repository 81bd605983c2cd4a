package io.cognitionstreams.reliability;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import java.util.stream.LongStream;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.topics.Topic;

/**
 * Requests of one run sent at a steady rate from a background thread, as agents would send them while the app is
 * killed, restarted or rebalanced. The producer is idempotent with acks=all, so what it reports sent is on the log
 * once, whatever happens to the app.
 */
final class Traffic {

    private final Thread thread;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    private Traffic(String bootstrap, Topic<String, CognitionRequest> requests, LongFunction<CognitionRequest> request,
                    long[] numbers, int rate, String run) {
        thread = new Thread(() -> send(bootstrap, requests, request, numbers, rate), "traffic-" + run);
        thread.start();
    }

    /** Sends requests {@code numbers} of the run (see {@link Workload#request}) at {@code rate} per second. */
    static Traffic start(String bootstrap, Topic<String, CognitionRequest> requests, Workload workload, String run,
                         long[] numbers, int rate) {
        return start(bootstrap, requests, n -> workload.request(run, n, Instant.now()), numbers, rate, run);
    }

    /** Sends request {@code request.apply(n)} for each of {@code numbers} at {@code rate} per second. */
    static Traffic start(String bootstrap, Topic<String, CognitionRequest> requests,
                         LongFunction<CognitionRequest> request, long[] numbers, int rate, String run) {
        return new Traffic(bootstrap, requests, request, numbers, rate, run);
    }

    /** An agent sending the run's requests at {@code rate} per second until stopped (an hour's worth at most). */
    static Traffic agent(String bootstrap, Topic<String, CognitionRequest> requests, String run, int rate) {
        return start(bootstrap, requests, Workload.NO_MEMORY, run, first(rate * 3_600), rate);
    }

    /** Request numbers 0 to count - 1. */
    static long[] first(int count) {
        return LongStream.range(0, count).toArray();
    }

    /** The prompt of each request, by request id. */
    static Map<String, String> prompts(Workload workload, String run, long[] numbers) {
        Map<String, String> prompts = new LinkedHashMap<>();
        for (long n : numbers) {
            CognitionRequest request = workload.request(run, n, Instant.EPOCH);
            prompts.put(request.getRequestId(), request.getUserPrompt());
        }
        return prompts;
    }

    long sent() {
        return sent.get();
    }

    /**
     * Sends no more: for runs that send for as long as they need rather than a set count. The requests sent are
     * then the first {@link #sent()} of {@code numbers}.
     */
    void stop() {
        stopping.set(true);
    }

    /** Waits until every request was acknowledged by the broker. */
    void await() throws InterruptedException {
        thread.join();
        if (failure.get() != null) {
            throw new IllegalStateException("sending requests failed", failure.get());
        }
    }

    private void send(String bootstrap, Topic<String, CognitionRequest> requests,
                      LongFunction<CognitionRequest> requestOf, long[] numbers, int rate) {
        // Agents that wait out a broker outage of minutes rather than fail their sends.
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 600_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            long start = System.nanoTime();
            for (int i = 0; i < numbers.length && failure.get() == null && !stopping.get(); i++) {
                long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                CognitionRequest request = requestOf.apply(numbers[i]);
                producer.send(new ProducerRecord<>(requests.name(),
                        request.getSessionId().getBytes(StandardCharsets.UTF_8),
                        requests.valueSerde().serializer().serialize(requests.name(), request)), (meta, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    }
                });
                sent.incrementAndGet();
            }
            producer.flush();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }
}
