package io.cognitionstreams.reliability;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;
import java.util.stream.LongStream;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.load.Workload;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.topics.Topic;

/**
 * Requests of one run sent at a steady rate from a background thread, as agents would send them while the app is
 * killed, restarted or rebalanced. The producer is idempotent with acks=all, so what it reports sent is on the log
 * once, whatever happens to the app.
 *
 * <p>A fixed set of requests ({@link #start}) must all be sent: the first refused send stops it and fails
 * {@link #await}. An agent ({@link #agent}) sends until it is stopped, and goes on after a refused send as a real one
 * would (a broker killed with the app may refuse batches its idempotent producer had in flight); a refused request is
 * not counted ({@link #delivered}), so no run waits for the answer to a request that was never written.
 */
final class Traffic {

    private final Thread thread;
    private final boolean agent;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    /** Numbers of the requests whose send failed, an agent's (a fixed set stops at the first). */
    private final Set<Long> refused = ConcurrentHashMap.newKeySet();

    private Traffic(String bootstrap, Topic<String, CognitionRequest> requests, LongFunction<CognitionRequest> request,
                    LongUnaryOperator number, long count, int rate, String run, boolean agent) {
        this.agent = agent;
        thread = new Thread(() -> send(bootstrap, requests, request, number, count, rate), "traffic-" + run);
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
        return new Traffic(bootstrap, requests, request, i -> numbers[(int) i], numbers.length, rate, run, false);
    }

    /** An agent sending the run's requests at {@code rate} per second until stopped. */
    static Traffic agent(String bootstrap, Topic<String, CognitionRequest> requests, String run, int rate) {
        return agent(bootstrap, requests, n -> Workload.NO_MEMORY.request(run, n, Instant.now()), run, rate);
    }

    /** An agent sending {@code request.apply(n)} for n = 0, 1, 2, ... */
    static Traffic agent(String bootstrap, Topic<String, CognitionRequest> requests,
                         LongFunction<CognitionRequest> request, String run, int rate) {
        // Until stopped: a run's length is its own (an agent of an hour's worth ended a 200-cycle soak at 72,000).
        return new Traffic(bootstrap, requests, request, i -> i, Long.MAX_VALUE, rate, run, true);
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
     * An agent's requests sent and not refused (it numbers them 0, 1, 2, ... as it sends them), once sending is over:
     * what the app must answer. A refused send that reached the log anyway (a timeout) is answered too, unchecked.
     */
    long[] delivered() {
        return LongStream.range(0, sent.get()).filter(n -> !refused.contains(n)).toArray();
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
                      LongFunction<CognitionRequest> requestOf, LongUnaryOperator number, long count, int rate) {
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            long start = System.nanoTime();
            for (long i = 0; i < count && failure.get() == null && !stopping.get(); i++) {
                long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                CognitionRequest request = requestOf.apply(number.applyAsLong(i));
                long index = i;
                try {
                    producer.send(new ProducerRecord<>(requests.name(),
                            request.getSessionId().getBytes(StandardCharsets.UTF_8),
                            requests.valueSerde().serializer().serialize(requests.name(), request)),
                            (meta, error) -> {
                                if (error != null) {
                                    refuse(index, error);
                                }
                            });
                } catch (KafkaException e) {
                    refuse(index, e); // refused before it was sent (its topic's size limit, a closed producer)
                }
                sent.incrementAndGet();
            }
            producer.flush();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    /** Agents that wait out a broker outage of minutes rather than fail their sends. */
    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 600_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private void refuse(long number, Exception error) {
        if (!agent) {
            failure.compareAndSet(null, error);
            return;
        }
        if (refused.add(number) && refused.size() <= 3) {
            System.err.printf("traffic: request %d refused by the broker, not counted as sent: %s%n", number, error);
        }
    }
}
